package chunk

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"cairn/object"
)

func TestBlockGeometry(t *testing.T) {
	for _, c := range []struct {
		size       uint32
		bs, blocks int
		lens       []int
	}{
		{0, 4, 0, nil},
		{1, 4, 1, []int{1}},
		{4, 4, 1, []int{4}},
		{5, 4, 2, []int{4, 1}},
		{12, 4, 3, []int{4, 4, 4}},
		{MaxSliceSize, 4 << 20, 16, nil},
		{MaxSliceSize - 1, 4 << 20, 16, nil},
	} {
		if got := numBlocks(c.size, c.bs); got != c.blocks {
			t.Errorf("numBlocks(%d, %d) = %d, want %d", c.size, c.bs, got, c.blocks)
		}
		for i, want := range c.lens {
			if got := blockLen(c.size, c.bs, i); got != want {
				t.Errorf("blockLen(%d, %d, %d) = %d, want %d", c.size, c.bs, i, got, want)
			}
		}
	}
	if got := blockKey(1234567890, 3, 4096); got != "chunks/1234/1234567/1234567890_3_4096" {
		t.Errorf("blockKey = %s", got)
	}
}

func TestCodecRoundTrip(t *testing.T) {
	inputs := map[string][]byte{
		"empty":    {},
		"zeros":    make([]byte, 100000),
		"text":     bytes.Repeat([]byte("cairn stores blocks. "), 5000),
		"random":   pattern(1, 70000),
		"one byte": {42},
	}
	for _, comp := range []string{"none", "lz4", "zstd"} {
		c, err := newCodec(comp)
		if err != nil {
			t.Fatal(err)
		}
		for name, in := range inputs {
			raw := c.encode(in)
			if comp != "none" && name == "text" && (raw[1] == compressNone || len(raw) >= len(in)/2) {
				t.Errorf("%s did not compress %s: %d -> %d bytes", comp, name, len(in), len(raw))
			}
			if name == "random" && raw[1] != compressNone {
				t.Errorf("%s stored incompressible data compressed (%d -> %d)", comp, len(in), len(raw))
			}
			out, err := c.decode("k", raw, len(in))
			if err != nil || !bytes.Equal(out, in) {
				t.Errorf("%s %s: decode: %v, equal %v", comp, name, err, bytes.Equal(out, in))
			}
		}
		c.close()
	}
}

func TestCodecDetectsCorruption(t *testing.T) {
	text := bytes.Repeat([]byte("0123456789abcdef"), 4096)
	for _, comp := range []string{"none", "lz4", "zstd"} {
		c, _ := newCodec(comp)
		good := c.encode(text)
		for name, mangle := range map[string]func([]byte) []byte{
			"flipped body byte": func(b []byte) []byte { b[len(b)/2] ^= 0x40; return b },
			"flipped last byte": func(b []byte) []byte { b[len(b)-1] ^= 1; return b },
			"flipped checksum":  func(b []byte) []byte { b[3] ^= 1; return b },
			"truncated":         func(b []byte) []byte { return b[:len(b)-7] },
			"header only":       func(b []byte) []byte { return b[:headerSize] },
			"short":             func(b []byte) []byte { return b[:3] },
			"bad format":        func(b []byte) []byte { b[0] = 9; return b },
			"bad compression":   func(b []byte) []byte { b[1] = 7; return b },
		} {
			raw := mangle(append([]byte(nil), good...))
			_, err := c.decode("k", raw, len(text))
			if !errors.Is(err, ErrCorrupt) || !errors.Is(err, syscall.EIO) {
				t.Errorf("%s, %s: decode err = %v, want ErrCorrupt and EIO", comp, name, err)
			}
		}
		if _, err := c.decode("k", good, len(text)-1); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: decode with the wrong length: %v, want ErrCorrupt", comp, err)
		}
		c.close()
	}
}

func TestConfigErrors(t *testing.T) {
	for _, cfg := range []Config{{Compression: "gzip"}, {BlockSize: -1}, {BlockSize: MaxSliceSize + 1}} {
		if _, err := New(object.NewMem("x"), cfg); err == nil {
			t.Errorf("New(%+v) succeeded", cfg)
		}
	}
}

func TestWholeBlockUploads(t *testing.T) {
	obj := object.NewMem("t")
	s := newTestStore(t, obj, Config{BlockSize: 64 << 10})
	data := pattern(3, 300<<10+5) // 4 whole blocks and a tail
	writeSlice(t, s, 7, data)
	if st := s.Stats(); st.Puts != 5 {
		t.Errorf("%d puts for 5 blocks written in 4 KiB pieces, want 5", st.Puts)
	}
	l, _ := obj.List(context.Background(), "chunks/", "", 0)
	var keys []string
	for _, in := range l {
		keys = append(keys, in.Key)
	}
	want := "[chunks/0/0/7_0_65536 chunks/0/0/7_1_65536 chunks/0/0/7_2_65536 chunks/0/0/7_3_65536 chunks/0/0/7_4_45061]"
	if fmt.Sprint(keys) != want {
		t.Errorf("stored keys %v\nwant %s", keys, want)
	}
	got := make([]byte, len(data))
	if _, err := s.ReadAt(context.Background(), 7, uint32(len(data)), got, 0); err != nil || !bytes.Equal(got, data) {
		t.Errorf("read back: %v, equal %v", err, bytes.Equal(got, data))
	}
}

func TestHolesReadAsZeros(t *testing.T) {
	s := newTestStore(t, object.NewMem("t"), Config{BlockSize: 1000})
	w := s.NewWriter(1)
	w.WriteAt([]byte("end"), 4997)
	if err := w.Finish(context.Background(), 5000); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 5000)
	if _, err := s.ReadAt(context.Background(), 1, 5000, got, 0); err != nil {
		t.Fatal(err)
	}
	want := append(make([]byte, 4997), "end"...)
	if !bytes.Equal(got, want) {
		t.Errorf("a slice written only at its end does not read as zeros then %q", "end")
	}
}

func TestWriterErrors(t *testing.T) {
	s := newTestStore(t, object.NewMem("t"), Config{BlockSize: 1000})
	w := s.NewWriter(1)
	if _, err := w.WriteAt(make([]byte, 10), MaxSliceSize-5); err == nil {
		t.Error("write past the slice limit succeeded")
	}
	w.WriteAt(make([]byte, 2500), 0)
	w.FlushTo(2000)
	if _, err := w.WriteAt([]byte("x"), 1500); err == nil {
		t.Error("write below a FlushTo offset succeeded")
	}
	if err := w.Finish(context.Background(), 1999); err == nil {
		t.Error("Finish below the FlushTo offset succeeded")
	}
	if err := w.Finish(context.Background(), 2500); err != nil {
		t.Fatal(err)
	}
	if _, err := w.WriteAt([]byte("x"), 2400); err == nil {
		t.Error("write after Finish succeeded")
	}
	if _, err := s.ReadAt(context.Background(), 1, 2500, make([]byte, 10), 2495); err == nil {
		t.Error("read past the slice size succeeded")
	}
}

// gatedStore holds every Put until the gate opens.
type gatedStore struct {
	object.Store
	gate chan struct{}
}

func (g *gatedStore) Put(ctx context.Context, key string, data []byte) error {
	<-g.gate
	return g.Store.Put(ctx, key, data)
}

func TestWriteAtBlocksWhenBufferFull(t *testing.T) {
	g := &gatedStore{Store: object.NewMem("t"), gate: make(chan struct{})}
	const bs = 64 << 10
	s := newTestStore(t, g, Config{BlockSize: bs, BufferSize: 2 * bs})
	w := s.NewWriter(1)
	if _, err := w.WriteAt(make([]byte, 2*bs), 0); err != nil {
		t.Fatal(err)
	}
	w.FlushTo(2 * bs) // both blocks now wait at the gate
	returned := make(chan struct{})
	go func() {
		w.WriteAt(make([]byte, bs), 2*bs)
		close(returned)
	}()
	select {
	case <-returned:
		t.Fatal("WriteAt went past a full buffer while its uploads were stuck")
	case <-time.After(200 * time.Millisecond):
	}
	if used := s.Stats().BufferBytes; used > 2*bs {
		t.Errorf("%d bytes buffered, limit %d", used, 2*bs)
	}
	close(g.gate)
	<-returned
	if err := w.Finish(context.Background(), 3*bs); err != nil {
		t.Fatal(err)
	}
	if used := s.Stats().BufferBytes; used != 0 {
		t.Errorf("%d bytes still buffered after Finish", used)
	}
}

func TestFinishWaitsAndReportsUploadErrors(t *testing.T) {
	f := &failingStore{Store: object.NewMem("t")}
	s := newTestStore(t, f, Config{BlockSize: 1000})
	w := s.NewWriter(1)
	data := pattern(11, 3000)
	w.WriteAt(data, 0)
	f.fail.Store(true)
	err := w.Finish(context.Background(), 3000)
	if err == nil || !errors.Is(err, errInjected) {
		t.Errorf("Finish = %v, want the upload error", err)
	}
	f.fail.Store(false)
	if err := w.Finish(context.Background(), 3000); err != nil {
		t.Fatalf("Finish again once the store works: %v", err)
	}
	got := make([]byte, 3000)
	if _, err := s.ReadAt(context.Background(), 1, 3000, got, 0); err != nil || !bytes.Equal(got, data) {
		t.Errorf("read after a retried Finish: %v, equal %v", err, bytes.Equal(got, data))
	}
	if used := s.Stats().BufferBytes; used != 0 {
		t.Errorf("%d bytes still buffered", used)
	}

	w = s.NewWriter(2)
	w.WriteAt(data, 0)
	f.fail.Store(true)
	if err := w.Finish(context.Background(), 3000); err == nil {
		t.Fatal("Finish with a failing store succeeded")
	}
	w.Abort()
	s.Close()
	if used := s.Stats().BufferBytes; used != 0 {
		t.Errorf("%d bytes still buffered after Abort", used)
	}
}

var errInjected = errors.New("injected put failure")

type failingStore struct {
	object.Store
	fail atomicBool
}

type atomicBool struct {
	mu sync.Mutex
	v  bool
}

func (b *atomicBool) Store(v bool) { b.mu.Lock(); b.v = v; b.mu.Unlock() }
func (b *atomicBool) Load() bool   { b.mu.Lock(); defer b.mu.Unlock(); return b.v }

func (f *failingStore) Put(ctx context.Context, key string, data []byte) error {
	if f.fail.Load() {
		return errInjected
	}
	return f.Store.Put(ctx, key, data)
}

func TestAbortAndRemoveDeleteBlocks(t *testing.T) {
	obj := object.NewMem("t")
	s, _ := New(obj, Config{BlockSize: 1000})
	w := s.NewWriter(1)
	w.WriteAt(make([]byte, 5000), 0)
	w.FlushTo(5000)
	w.Abort()
	writeSlice(t, s, 2, pattern(1, 2500))
	if err := s.Remove(context.Background(), 2, 2500); err != nil {
		t.Fatal(err)
	}
	if err := s.Remove(context.Background(), 3, 2500); err != nil {
		t.Errorf("Remove of a slice that was never stored: %v", err)
	}
	s.Close()
	if l, _ := obj.List(context.Background(), "", "", 0); len(l) != 0 {
		t.Errorf("%d objects left after Abort and Remove: %v", len(l), l[0].Key)
	}
}

func TestCorruptBlockIsEIO(t *testing.T) {
	for _, comp := range []string{"none", "lz4", "zstd"} {
		obj := object.NewMem("t")
		s := newTestStore(t, obj, Config{BlockSize: 4096, Compression: comp, Readahead: -1})
		data := bytes.Repeat([]byte("compressible "), 1000)
		writeSlice(t, s, 1, data)
		writeSlice(t, s, 2, data)
		key := blockKey(1, 1, 4096)
		raw, _ := obj.Get(context.Background(), key, 0, -1)
		raw[len(raw)-1] ^= 0xff
		obj.Put(context.Background(), key, raw)

		s2 := newTestStore(t, obj, Config{BlockSize: 4096, Readahead: -1})
		buf := make([]byte, 100)
		if _, err := s2.ReadAt(context.Background(), 1, uint32(len(data)), buf, 0); err != nil {
			t.Errorf("%s: an intact block of a slice with a corrupt one: %v", comp, err)
		}
		_, err := s2.ReadAt(context.Background(), 1, uint32(len(data)), buf, 5000)
		if !errors.Is(err, syscall.EIO) || !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: reading a corrupt block: %v, want EIO and ErrCorrupt", comp, err)
		}
		got := make([]byte, len(data))
		if _, err := s2.ReadAt(context.Background(), 2, uint32(len(data)), got, 0); err != nil || !bytes.Equal(got, data) {
			t.Errorf("%s: another slice no longer reads: %v", comp, err)
		}
		if s2.Stats().Corrupt != 1 {
			t.Errorf("%s: Corrupt counter %d, want 1", comp, s2.Stats().Corrupt)
		}
	}
}

func TestMissingBlockIsEIO(t *testing.T) {
	s := newTestStore(t, object.NewMem("t"), Config{BlockSize: 4096})
	_, err := s.ReadAt(context.Background(), 9, 100, make([]byte, 10), 0)
	if !errors.Is(err, syscall.EIO) || !errors.Is(err, ErrBlockMissing) || !errors.Is(err, object.ErrNotExist) {
		t.Errorf("read of a block never stored: %v, want EIO, ErrBlockMissing and object.ErrNotExist", err)
	}
}

func TestSequentialReadsPrefetch(t *testing.T) {
	obj := &countingStore{Store: object.NewMem("t"), gets: map[string]int{}}
	s := newTestStore(t, obj, Config{BlockSize: 4096, Readahead: 4 * 4096})
	data := pattern(5, 20*4096)
	writeSlice(t, s, 1, data)
	got := make([]byte, len(data))
	for off := 0; off < len(data); off += 1000 {
		end := min(off+1000, len(data))
		if _, err := s.ReadAt(context.Background(), 1, uint32(len(data)), got[off:end], uint32(off)); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(got, data) {
		t.Fatal("sequential read differs from what was written")
	}
	st := s.Stats()
	if st.Prefetches == 0 || st.Gets != 20 {
		t.Errorf("sequential read: %d prefetches, %d gets; want some prefetches and each of 20 blocks fetched once", st.Prefetches, st.Gets)
		obj.mu.Lock()
		t.Logf("gets: %v", obj.gets)
		obj.mu.Unlock()
	}
}

func TestDiskCacheSurvivesRestart(t *testing.T) {
	obj := object.NewMem("t")
	dir := t.TempDir()
	cfg := Config{BlockSize: 4096, CacheDir: dir, CacheSize: 1 << 20, Readahead: -1}
	s, _ := New(obj, cfg)
	data := pattern(6, 10000)
	writeSlice(t, s, 1, data)
	got := make([]byte, len(data))
	if _, err := s.ReadAt(context.Background(), 1, uint32(len(data)), got, 0); err != nil {
		t.Fatal(err)
	}
	s.Close() // flushes the cache writer
	for _, in := range mustList(t, obj) {
		obj.Delete(context.Background(), in.Key)
	}
	s2 := newTestStore(t, obj, cfg)
	clear(got)
	if _, err := s2.ReadAt(context.Background(), 1, uint32(len(data)), got, 0); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("after restart, with the store emptied, read from cache: %v", err)
	}
	if st := s2.Stats(); st.CacheHits != 3 || st.Gets != 0 {
		t.Errorf("after restart: %d cache hits, %d gets; want 3 and 0", st.CacheHits, st.Gets)
	}
}

func mustList(t *testing.T, obj object.Store) []object.Info {
	l, err := obj.List(context.Background(), "", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestDiskCacheEvicts(t *testing.T) {
	dir := t.TempDir()
	s := newTestStore(t, object.NewMem("t"), Config{BlockSize: 4096, CacheDir: dir, CacheSize: 5 * 4106, Readahead: -1, CacheWrites: CacheAllWrites})
	data := pattern(7, 4096)
	for id := uint64(1); id <= 20; id++ {
		writeSlice(t, s, id, data)
	}
	s.Close()
	var total int64
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			total += info.Size()
		}
		return nil
	})
	if total > 5*4106 || total == 0 {
		t.Errorf("disk cache holds %d bytes, limit %d", total, 5*4106)
	}
}

func TestDiskCacheFailuresFallBack(t *testing.T) {
	obj := object.NewMem("t")
	data := pattern(8, 10000)

	// A cache directory that cannot be made: the store works without it.
	blocker := filepath.Join(t.TempDir(), "file")
	os.WriteFile(blocker, nil, 0o644)
	s := newTestStore(t, obj, Config{BlockSize: 4096, CacheDir: filepath.Join(blocker, "cache")})
	writeSlice(t, s, 1, data)
	got := make([]byte, len(data))
	if _, err := s.ReadAt(context.Background(), 1, uint32(len(data)), got, 0); err != nil || !bytes.Equal(got, data) {
		t.Errorf("read with an unusable cache dir: %v", err)
	}

	// A cached block damaged on disk: dropped, read from the store.
	dir := t.TempDir()
	cfg := Config{BlockSize: 4096, CacheDir: dir, Readahead: -1}
	s2, _ := New(obj, cfg)
	s2.ReadAt(context.Background(), 1, uint32(len(data)), got, 0)
	s2.Close()
	p := filepath.Join(dir, "cache", filepath.FromSlash(blockKey(1, 0, 4096)))
	raw, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("block not in the disk cache: %v", err)
	}
	raw[100] ^= 1
	os.WriteFile(p, raw, 0o644)
	s3 := newTestStore(t, obj, cfg)
	clear(got)
	if _, err := s3.ReadAt(context.Background(), 1, uint32(len(data)), got, 0); err != nil || !bytes.Equal(got, data) {
		t.Errorf("read over a damaged cache file: %v", err)
	}
	if st := s3.Stats(); st.Gets != 1 || st.Corrupt != 0 {
		t.Errorf("damaged cache file: %d gets, %d corrupt; want 1 get from the store and no corruption reported", st.Gets, st.Corrupt)
	}
}

func TestConcurrentReadersShareDownloads(t *testing.T) {
	obj := object.NewMem("t")
	s := newTestStore(t, obj, Config{BlockSize: 1 << 16, Readahead: -1})
	data := pattern(9, 1<<16)
	writeSlice(t, s, 1, data)
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got := make([]byte, 100)
			if _, err := s.ReadAt(context.Background(), 1, 1<<16, got, uint32(i*100)); err != nil || !bytes.Equal(got, data[i*100:i*100+100]) {
				t.Errorf("reader %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	if g := s.Stats().Gets; g != 1 {
		t.Errorf("%d gets for one block read by 16 readers, want 1", g)
	}
}

// countingStore counts the Gets of each key.
type countingStore struct {
	object.Store
	mu   sync.Mutex
	gets map[string]int
}

func (c *countingStore) Get(ctx context.Context, key string, off, limit int64) ([]byte, error) {
	c.mu.Lock()
	c.gets[key]++
	c.mu.Unlock()
	return c.Store.Get(ctx, key, off, limit)
}

// TestBlockAlteredOnDisk alters a block file of a local-directory store
// behind the Store's back: reading it is EIO, other slices read fine.
func TestBlockAlteredOnDisk(t *testing.T) {
	dir := t.TempDir()
	obj, _ := object.NewFile(dir)
	cfg := Config{BlockSize: 64 << 10, Compression: "zstd"}
	s := newTestStore(t, obj, cfg)
	a, b := pattern(31, 200<<10), pattern(32, 200<<10)
	writeSlice(t, s, 1, a)
	writeSlice(t, s, 2, b)
	p := filepath.Join(dir, filepath.FromSlash(blockKey(1, 2, 64<<10)))
	raw, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	raw[len(raw)/2] ^= 0x01
	if err := os.WriteFile(p, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	fresh := newTestStore(t, obj, cfg)
	got := make([]byte, len(a))
	_, err = fresh.ReadAt(context.Background(), 1, uint32(len(a)), got, 0)
	if !errors.Is(err, syscall.EIO) {
		t.Errorf("read over an altered block: %v, want EIO", err)
	}
	if _, err := fresh.ReadAt(context.Background(), 2, uint32(len(b)), got, 0); err != nil || !bytes.Equal(got, b) {
		t.Errorf("another slice: %v", err)
	}
}

// TestWriteCachingPolicies writes two full blocks and a short tail, empties
// the object store, and reads each block back through a fresh Store: only
// the blocks the policy put into the disk cache can still be read.
func TestWriteCachingPolicies(t *testing.T) {
	data := pattern(9, 2*4096+1000)
	for _, tc := range []struct {
		policy string
		cached []bool // per block
	}{
		{"small", []bool{false, false, true}},
		{"all", []bool{true, true, true}},
		{"none", []bool{false, false, false}},
	} {
		t.Run(tc.policy, func(t *testing.T) {
			policy, err := ParseWriteCaching(tc.policy)
			if err != nil {
				t.Fatal(err)
			}
			obj := object.NewMem("t")
			cfg := Config{BlockSize: 4096, CacheDir: t.TempDir(), Readahead: -1, CacheWrites: policy}
			s, err := New(obj, cfg)
			if err != nil {
				t.Fatal(err)
			}
			writeSlice(t, s, 1, data)
			s.Close() // flushes the cache writer
			for _, in := range mustList(t, obj) {
				obj.Delete(context.Background(), in.Key)
			}
			s2 := newTestStore(t, obj, cfg)
			for i, want := range tc.cached {
				off := i * 4096
				got := make([]byte, min(4096, len(data)-off))
				_, err := s2.ReadAt(context.Background(), 1, uint32(len(data)), got, uint32(off))
				if have := err == nil && bytes.Equal(got, data[off:off+len(got)]); have != want {
					t.Errorf("block %d readable from the cache: %v (err %v), want %v", i, have, err, want)
				}
			}
		})
	}
	if _, err := ParseWriteCaching("most"); err == nil {
		t.Error("unknown policy accepted")
	}
}
