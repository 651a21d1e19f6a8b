package chunk

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"syscall"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// A stored block is a header followed by the (possibly compressed) data:
//
//	byte 0      format version (1)
//	byte 1      compression: 0 none, 1 lz4, 2 zstd
//	bytes 2-5   CRC32C of the plain data, little endian
//	bytes 6-9   length of the plain data, little endian
//
// A block that did not shrink is stored uncompressed whatever the volume's
// setting, so reading never depends on the setting.
const (
	headerSize    = 10
	formatVersion = 1
)

const (
	compressNone byte = iota
	compressLZ4
	compressZstd
)

var codecByName = map[string]byte{"none": compressNone, "lz4": compressLZ4, "zstd": compressZstd}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ErrCorrupt is matched (errors.Is) by every error about a block whose bytes
// are not what was written: bad header, failed decompression, wrong length,
// checksum mismatch. Such errors also match syscall.EIO, which is what vfs
// should return to the application.
var ErrCorrupt = errors.New("block is corrupt")

type corruptError struct {
	key, why string
}

func (e *corruptError) Error() string {
	return fmt.Sprintf("block %s is corrupt: %s", e.key, e.why)
}

func (e *corruptError) Is(target error) bool {
	return target == ErrCorrupt || target == syscall.EIO
}

// codec compresses and checks blocks. Its zstd coder is safe for concurrent
// use through EncodeAll and DecodeAll.
type codec struct {
	kind byte
	zenc *zstd.Encoder
	zdec *zstd.Decoder
}

func newCodec(name string) (*codec, error) {
	c := &codec{kind: codecByName[name]}
	var err error
	if c.zdec, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0)); err != nil {
		return nil, fmt.Errorf("zstd decoder: %w", err)
	}
	if c.kind == compressZstd {
		if c.zenc, err = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1)); err != nil {
			return nil, fmt.Errorf("zstd encoder: %w", err)
		}
	}
	return c, nil
}

func (c *codec) close() {
	c.zdec.Close()
	if c.zenc != nil {
		c.zenc.Close()
	}
}

// encode returns the stored form of plain.
func (c *codec) encode(plain []byte) []byte {
	room := make([]byte, headerSize+len(plain))
	copy(room[headerSize:], plain)
	return c.encodeRoom(room)
}

// encodeRoom returns the stored form of room[headerSize:]. A block stored
// uncompressed is room itself with the header filled in: no copy.
func (c *codec) encodeRoom(room []byte) []byte {
	plain := room[headerSize:]
	out := room
	kind := c.kind
	switch kind {
	case compressLZ4:
		buf := make([]byte, headerSize+lz4.CompressBlockBound(len(plain)))
		n, err := lz4.CompressBlock(plain, buf[headerSize:], nil)
		if err == nil && n > 0 && n < len(plain) {
			out = buf[:headerSize+n]
		} else {
			kind = compressNone
		}
	case compressZstd:
		buf := c.zenc.EncodeAll(plain, make([]byte, headerSize, headerSize+len(plain)/2+64))
		if len(buf)-headerSize < len(plain) {
			out = buf
		} else {
			kind = compressNone
		}
	}
	out[0] = formatVersion
	out[1] = kind
	binary.LittleEndian.PutUint32(out[2:], crc32.Checksum(plain, castagnoli))
	binary.LittleEndian.PutUint32(out[6:], uint32(len(plain)))
	return out
}

// decode checks a stored block against its header and the length its key
// promises, and returns the plain data.
func (c *codec) decode(key string, raw []byte, wantLen int) ([]byte, error) {
	if len(raw) < headerSize {
		return nil, &corruptError{key, fmt.Sprintf("%d bytes, shorter than a header", len(raw))}
	}
	if raw[0] != formatVersion {
		return nil, &corruptError{key, fmt.Sprintf("unknown format %d", raw[0])}
	}
	sum := binary.LittleEndian.Uint32(raw[2:])
	n := int(binary.LittleEndian.Uint32(raw[6:]))
	if n != wantLen {
		return nil, &corruptError{key, fmt.Sprintf("holds %d bytes, want %d", n, wantLen)}
	}
	body := raw[headerSize:]
	var plain []byte
	switch raw[1] {
	case compressNone:
		plain = body
	case compressLZ4:
		plain = make([]byte, n)
		got, err := lz4.UncompressBlock(body, plain)
		if err != nil || got != n {
			return nil, &corruptError{key, fmt.Sprintf("lz4 gave %d bytes (%v)", got, err)}
		}
	case compressZstd:
		var err error
		plain, err = c.zdec.DecodeAll(body, make([]byte, 0, n))
		if err != nil {
			return nil, &corruptError{key, "zstd: " + err.Error()}
		}
	default:
		return nil, &corruptError{key, fmt.Sprintf("unknown compression %d", raw[1])}
	}
	if len(plain) != n {
		return nil, &corruptError{key, fmt.Sprintf("decoded to %d bytes, want %d", len(plain), n)}
	}
	if crc32.Checksum(plain, castagnoli) != sum {
		return nil, &corruptError{key, "checksum mismatch"}
	}
	return plain, nil
}
