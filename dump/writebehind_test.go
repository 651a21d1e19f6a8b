package dump

import (
	"bytes"
	"errors"
	"testing"
)

// TestWriteBehindKeepsOrder: many writes of odd sizes across the buffers'
// edges come out byte for byte, in order.
func TestWriteBehindKeepsOrder(t *testing.T) {
	var out bytes.Buffer
	var want []byte
	w := newWriteBehind(&out)
	for i := range 20000 {
		p := bytes.Repeat([]byte{byte(i)}, i%97+1)
		if i%1000 == 0 {
			p = bytes.Repeat([]byte{byte(i)}, writeBehindSize+i)
		}
		want = append(want, p...)
		if n, err := w.Write(p); err != nil || n != len(p) {
			t.Fatalf("write %d: %d, %v", i, n, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Fatalf("wrote %d bytes, want %d, or in another order", out.Len(), len(want))
	}
	if _, err := w.Write([]byte{1}); err == nil {
		t.Error("a write after Close succeeded")
	}
}

type failingWriter struct{ after, wrote int }

var errDiskFull = errors.New("disk full")

func (f *failingWriter) Write(p []byte) (int, error) {
	if f.wrote+len(p) > f.after {
		return 0, errDiskFull
	}
	f.wrote += len(p)
	return len(p), nil
}

// TestWriteBehindStopsAtAFailure: a failure of the underlying writer stops
// the writes that follow, not only Close, so a dump into a full disk ends
// early.
func TestWriteBehindStopsAtAFailure(t *testing.T) {
	w := newWriteBehind(&failingWriter{after: writeBehindSize})
	block := make([]byte, writeBehindSize)
	var err error
	for i := 0; i < 100 && err == nil; i++ {
		_, err = w.Write(block)
	}
	if !errors.Is(err, errDiskFull) {
		t.Errorf("writes after the failure: %v, want the failure", err)
	}
	if err := w.Close(); !errors.Is(err, errDiskFull) {
		t.Errorf("Close: %v, want the failure", err)
	}
}
