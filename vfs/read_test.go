package vfs

import (
	"bytes"
	"testing"
	"time"

	"cairn/meta"
)

// TestSequentialReaderPrefetchesNextChunk reads the first chunk of a
// two-chunk file sequentially and checks that the first blocks of the
// second chunk are downloaded before the reader asks for them.
func TestSequentialReaderPrefetchesNextChunk(t *testing.T) {
	v := newTestVFS(t, nil, Config{})
	fh, _ := create(t, v, "big")
	block := int(v.blockSize())
	data := bytes.Repeat([]byte("0123456789abcdef"), (meta.ChunkSize+8*block)/16)
	for off := 0; off < len(data); off += 1 << 20 {
		end := min(off+1<<20, len(data))
		if _, err := v.Write(ctx, fh, data[off:end], uint64(off)); err != nil {
			t.Fatal(err)
		}
	}
	if err := v.Flush(ctx, fh, 0); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1<<20)
	for off := 0; off < meta.ChunkSize; off += len(buf) {
		if n, err := v.Read(ctx, fh, buf, uint64(off)); err != nil || n != len(buf) || !bytes.Equal(buf, data[off:off+n]) {
			t.Fatalf("read at %d: %d bytes, %v, or wrong data", off, n, err)
		}
	}
	firstChunk := int64(meta.ChunkSize / block)
	want := firstChunk + prefetchBlocks
	deadline := time.Now().Add(5 * time.Second)
	for v.store.Stats().Gets < want && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := v.store.Stats().Gets; got != want {
		t.Errorf("after reading the first chunk: %d blocks downloaded, want the %d of the first chunk and %d of the second", got, firstChunk, prefetchBlocks)
	}
	if n, err := v.Read(ctx, fh, buf, meta.ChunkSize); err != nil || !bytes.Equal(buf[:n], data[meta.ChunkSize:meta.ChunkSize+n]) {
		t.Fatalf("read of the second chunk: %d bytes, %v, or wrong data", n, err)
	}
}
