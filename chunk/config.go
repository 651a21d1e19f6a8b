package chunk

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
)

// MaxSliceSize is the largest slice: a slice never crosses the 64 MiB chunk
// it belongs to.
const MaxSliceSize = 64 << 20

// Config sets up a Store. Zero fields take the defaults below.
type Config struct {
	BlockSize   int    // bytes; the volume's block size, default 4 MiB
	Compression string // "none" (or ""), "lz4", "zstd"
	BufferSize  int64  // bytes of memory all Writers may hold, default 300 MiB
	Uploaders   int    // concurrent uploads, default 10
	Downloaders int    // concurrent downloads and prefetches, default 10
	CacheDir    string // local disk cache of blocks; "" = none
	CacheSize   int64  // bytes of the disk cache, default 1 GiB
	Readahead   int    // most bytes read ahead of a sequential reader, default 64 MiB (at least 4 blocks, at most 32)

	// Additions beyond the agreed API:

	// MemCacheSize bounds the recently read blocks kept in memory, default
	// 64 MiB or Readahead + 4 blocks, whichever is more.
	MemCacheSize int64
	// Writeback makes Finish return once the slice's blocks are durable in
	// a staging area under CacheDir; they are uploaded in the background,
	// also after a restart. Needs CacheDir.
	Writeback bool
	// CacheWrites says which written blocks also go into the disk cache
	// once stored, so that reading back what was just written does not go
	// to the object store.
	CacheWrites WriteCaching
}

// WriteCaching is a policy for putting written blocks into the disk cache.
type WriteCaching int

const (
	// CacheSmallWrites, the default, caches blocks shorter than the block
	// size: small files and the tails of big ones, which cost a request
	// each to read back; a big file's full blocks would push a cache's
	// worth of read blocks out.
	CacheSmallWrites WriteCaching = iota
	CacheNoWrites
	CacheAllWrites
)

// ParseWriteCaching reads a policy: "small", "all" or "none".
func ParseWriteCaching(s string) (WriteCaching, error) {
	switch s {
	case "small":
		return CacheSmallWrites, nil
	case "all":
		return CacheAllWrites, nil
	case "none":
		return CacheNoWrites, nil
	}
	return 0, fmt.Errorf("unknown write caching %q (use small, all or none)", s)
}

const (
	defaultBlockSize  = 4 << 20
	defaultBufferSize = 300 << 20
	defaultWorkers    = 10
	defaultCacheSize  = 1 << 30
	// defaultReadahead keeps a sequential reader of a remote store enough
	// downloads ahead: at 4 MiB blocks and some 20 ms per block, 4 blocks
	// in flight cap a reader of MinIO on loopback at about 400 MiB/s, 16
	// at what the server can send.
	defaultReadahead = 64 << 20
	// minReadaheadBlocks is the window a sequential reader gets at first;
	// it grows to Readahead as the reader keeps going.
	minReadaheadBlocks = 4
	// maxReadaheadBlocks bounds the default window of small blocks, where
	// 64 MiB would mean hundreds of downloads queued per reader.
	maxReadaheadBlocks = 32
)

func (c Config) withDefaults() (Config, error) {
	if c.BlockSize == 0 {
		c.BlockSize = defaultBlockSize
	}
	if c.BlockSize < 0 || c.BlockSize > MaxSliceSize {
		return c, fmt.Errorf("block size %d is out of range (1 byte to 64 MiB)", c.BlockSize)
	}
	if c.Compression == "" {
		c.Compression = "none"
	}
	if _, ok := codecByName[c.Compression]; !ok {
		return c, fmt.Errorf("unknown compression %q (use none, lz4 or zstd)", c.Compression)
	}
	if c.BufferSize <= 0 {
		c.BufferSize = defaultBufferSize
	}
	if c.Uploaders <= 0 {
		c.Uploaders = defaultWorkers
	}
	if c.Downloaders <= 0 {
		c.Downloaders = defaultWorkers
	}
	if c.Writeback && c.CacheDir == "" {
		return c, fmt.Errorf("writeback needs a cache directory to stage blocks in")
	}
	if c.CacheSize <= 0 {
		c.CacheSize = defaultCacheSize
	}
	if c.Readahead == 0 {
		c.Readahead = max(minReadaheadBlocks*c.BlockSize, min(defaultReadahead, maxReadaheadBlocks*c.BlockSize))
	}
	if c.Readahead < 0 {
		c.Readahead = 0
	}
	if c.MemCacheSize <= 0 {
		c.MemCacheSize = max(64<<20, int64(c.Readahead)+4*int64(c.BlockSize))
	}
	return c, nil
}

// blockKey names block i, of length blockLen, of slice id. Spreading slices
// over two directory levels keeps directories of a local store small.
func blockKey(id uint64, i int, blockLen int) string {
	return fmt.Sprintf(KeyPrefix+"%d/%d/%d_%d_%d", id/1000000, id/1000, id, i, blockLen)
}

// keyBlockLen is the block length a block key names (0 if it names none).
func keyBlockLen(key string) int {
	n, err := strconv.Atoi(key[strings.LastIndexByte(key, '_')+1:])
	if err != nil {
		return 0
	}
	return n
}

// blockLen is the length of block i of a slice of size bytes.
func blockLen(size uint32, blockSize, i int) int {
	start := int64(i) * int64(blockSize)
	n := int64(size) - start
	if n > int64(blockSize) {
		n = int64(blockSize)
	}
	if n < 0 {
		n = 0
	}
	return int(n)
}

// numBlocks is how many blocks hold size bytes.
func numBlocks(size uint32, blockSize int) int {
	q, r := bits.Div32(0, size, uint32(blockSize))
	if r > 0 {
		q++
	}
	return int(q)
}
