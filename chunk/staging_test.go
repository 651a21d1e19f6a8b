package chunk

import (
	"bytes"
	"context"
	"io/fs"
	"path/filepath"
	"testing"

	"cairn/internal/testenv"
	"cairn/object"
)

func TestWritebackFinishesBeforeUpload(t *testing.T) {
	g := &gatedStore{Store: object.NewMem("t"), gate: make(chan struct{})}
	s := newTestStore(t, g, Config{BlockSize: 4096, CacheDir: t.TempDir(), Writeback: true})
	data := pattern(21, 10000)
	writeSlice(t, s, 1, data) // returns although every Put is held at the gate
	if st := s.Stats(); st.Staged != 3 || st.StagedBytes < int64(len(data)) {
		t.Errorf("%d blocks of %d bytes staged, want 3 of at least %d", st.Staged, st.StagedBytes, len(data))
	}
	got := make([]byte, len(data))
	if _, err := s.ReadAt(context.Background(), 1, uint32(len(data)), got, 0); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("read of a staged slice: %v", err)
	}
	writeSlice(t, s, 2, data)
	if err := s.Remove(context.Background(), 2, uint32(len(data))); err != nil {
		t.Fatal(err)
	}
	close(g.gate)
	testenv.Eventually(t, "staging empty", func() bool { return s.Stats().Staged == 0 })
	if n := s.Stats().StagedBytes; n != 0 {
		t.Errorf("%d bytes staged once every block is uploaded", n)
	}
	l := mustList(t, g.Store)
	if len(l) != 3 {
		t.Errorf("%d objects stored, want the 3 blocks of slice 1 (slice 2 was removed)", len(l))
	}
}

func TestWritebackUploadsAfterRestart(t *testing.T) {
	dir := t.TempDir()
	f := &failingStore{Store: object.NewMem("t")}
	f.fail.Store(true)
	cfg := Config{BlockSize: 4096, CacheDir: dir, Writeback: true}
	s, err := New(f, cfg)
	if err != nil {
		t.Fatal(err)
	}
	data := pattern(22, 9000)
	writeSlice(t, s, 1, data) // durable locally though the store fails
	s.Close()
	if l := mustList(t, f.Store); len(l) != 0 {
		t.Fatalf("%d objects stored by a failing store", len(l))
	}

	f.fail.Store(false)
	s2 := newTestStore(t, f, cfg)
	testenv.Eventually(t, "staging empty", func() bool { return s2.Stats().Staged == 0 })
	s2.Close()
	plain := newTestStore(t, f.Store, Config{BlockSize: 4096})
	got := make([]byte, len(data))
	if _, err := plain.ReadAt(context.Background(), 1, uint32(len(data)), got, 0); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("slice staged before a restart, read from the store: %v", err)
	}
}

func TestWritebackNeedsCacheDir(t *testing.T) {
	if _, err := New(object.NewMem("t"), Config{Writeback: true}); err == nil {
		t.Error("writeback without a cache directory accepted")
	}
}

// TestWritebackMovesUploadedBlocksToCache: once uploaded, a staged block
// the write caching policy keeps (here the short tail) is moved into the
// disk cache, the others are deleted; nothing is left in staging.
func TestWritebackMovesUploadedBlocksToCache(t *testing.T) {
	dir := t.TempDir()
	obj := object.NewMem("t")
	cfg := Config{BlockSize: 4096, CacheDir: dir, Writeback: true, Readahead: -1}
	s := newTestStore(t, obj, cfg)
	data := pattern(23, 2*4096+500)
	writeSlice(t, s, 1, data)
	testenv.Eventually(t, "staging empty", func() bool { return s.Stats().Staged == 0 })
	s.Close()
	files := func(sub string) (n int) {
		filepath.WalkDir(filepath.Join(dir, sub), func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				n++
			}
			return nil
		})
		return n
	}
	if n := files("staging"); n != 0 {
		t.Errorf("%d files left in staging after the uploads", n)
	}
	if n := files("cache"); n != 1 {
		t.Errorf("%d blocks in the disk cache, want the short tail only", n)
	}
	for _, in := range mustList(t, obj) {
		obj.Delete(context.Background(), in.Key)
	}
	cfg.Writeback = false
	s2 := newTestStore(t, obj, cfg)
	got := make([]byte, 500)
	if _, err := s2.ReadAt(context.Background(), 1, uint32(len(data)), got, 2*4096); err != nil || !bytes.Equal(got, data[2*4096:]) {
		t.Errorf("tail read from the disk cache with the store emptied: %v", err)
	}
}

// TestUploadStaged: blocks a writeback store left staged are counted, kept
// while the object store fails, and uploaded once it answers, so that a
// store without writeback then reads them.
func TestUploadStaged(t *testing.T) {
	dir := t.TempDir()
	if n := StagedBlocks(dir); n != 0 {
		t.Fatalf("%d blocks staged in an empty cache directory", n)
	}
	f := &failingStore{Store: object.NewMem("t")}
	f.fail.Store(true)
	cfg := Config{BlockSize: 4096, CacheDir: dir, Writeback: true}
	s, err := New(f, cfg)
	if err != nil {
		t.Fatal(err)
	}
	data := pattern(24, 9000)
	writeSlice(t, s, 1, data)
	s.Close()
	if n := StagedBlocks(dir); n != 3 {
		t.Fatalf("%d blocks staged after a writeback store failed to upload, want 3", n)
	}

	cfg.Writeback = false
	if left, err := UploadStaged(f, cfg); err != nil || left == 0 {
		t.Fatalf("UploadStaged to a failing store = %d left, %v; want blocks left and no error", left, err)
	}
	f.fail.Store(false)
	if left, err := UploadStaged(f, cfg); err != nil || left != 0 {
		t.Fatalf("UploadStaged = %d left, %v; want none left", left, err)
	}
	if n := len(mustList(t, f.Store)); n != 3 {
		t.Errorf("%d objects stored, want the 3 staged blocks", n)
	}
	plain := newTestStore(t, f.Store, Config{BlockSize: 4096})
	got := make([]byte, len(data))
	if _, err := plain.ReadAt(context.Background(), 1, uint32(len(data)), got, 0); err != nil || !bytes.Equal(got, data) {
		t.Errorf("slice read after UploadStaged: %v", err)
	}
}
