package vfs

import (
	"bytes"
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"

	"cairn/meta"
)

// TestWritesUnderMemoryPressure writes partial blocks to more files than
// the write buffer can hold at once: writers must not wait forever for
// memory that only idle files hold.
func TestWritesUnderMemoryPressure(t *testing.T) {
	v := newTestVFSBuffer(t, 512<<10, Config{FlushAfter: 100 * time.Millisecond})
	const files = 24
	data := bytes.Repeat([]byte("x"), 40<<10) // below the 64 KiB block
	var wg sync.WaitGroup
	errs := make(chan error, files)
	fhs := make([]uint64, files)
	for i := range files {
		fh, _, err := v.Create(ctx, meta.RootCred, meta.RootIno, fmt.Sprintf("f%d", i), 0644, syscall.O_RDWR)
		if err != nil {
			t.Fatal(err)
		}
		fhs[i] = fh
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := v.Write(ctx, fh, data, 0); err != nil {
				errs <- err
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("writes still blocked after 30s")
	}
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for i, fh := range fhs {
		got := readAll(t, v, fh, len(data))
		if !bytes.Equal(got, data) {
			t.Fatalf("file %d: read back %d bytes that differ", i, len(got))
		}
		if err := v.Release(ctx, fh, 0); err != nil {
			t.Fatal(err)
		}
	}
}

// TestConcurrentWritersOneFile has several goroutines write disjoint
// ranges of one file at once, with reads and fsyncs in between.
func TestConcurrentWritersOneFile(t *testing.T) {
	v := newTestVFS(t, nil, Config{CompactAfter: 10})
	fh, _ := create(t, v, "shared")
	const writers, pieces, size = 4, 50, 3000
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range pieces {
				off := uint64((p*writers + w) * size)
				buf := bytes.Repeat([]byte{byte('a' + w)}, size)
				if _, err := v.Write(ctx, fh, buf, off); err != nil {
					t.Error(err)
					return
				}
				if p%10 == 0 {
					if err := v.Fsync(ctx, fh); err != nil {
						t.Error(err)
						return
					}
					v.Read(ctx, fh, make([]byte, size), off)
				}
			}
		}()
	}
	wg.Wait()
	got := readAll(t, v, fh, writers*pieces*size)
	if len(got) != writers*pieces*size {
		t.Fatalf("length %d, want %d", len(got), writers*pieces*size)
	}
	for i := 0; i < len(got); i += size {
		want := byte('a' + (i/size)%writers)
		if !bytes.Equal(got[i:i+size], bytes.Repeat([]byte{want}, size)) {
			t.Fatalf("piece at %d differs", i)
		}
	}
	v.Release(ctx, fh, 0)
}
