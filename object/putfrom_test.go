package object_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"

	"cairn/internal/testenv"
	"cairn/object"
)

// smallReads refuses reads larger than 1 MiB: a store that read the
// object whole instead of streaming it fails on it.
type smallReads struct{ r *bytes.Reader }

func (s smallReads) ReadAt(p []byte, off int64) (int, error) {
	if len(p) > 1<<20 {
		return 0, fmt.Errorf("a read of %d bytes: not streamed", len(p))
	}
	return s.r.ReadAt(p, off)
}

// wrapper is a store wrapper without a PutFrom of its own.
type wrapper struct{ object.Store }

func (w wrapper) Unwrap() object.Store { return w.Store }

// TestPutFrom stores objects with PutFrom in every store — streamed in
// the file store (also behind a wrapper) and S3 (MinIO, larger than one
// part), read whole in memory — and reads them back.
func TestPutFrom(t *testing.T) {
	ctx := context.Background()
	m := testenv.MinIO(t)
	file, err := object.Open("file", t.TempDir(), object.Options{})
	if err != nil {
		t.Fatal(err)
	}
	behind, err := object.Open("file", t.TempDir(), object.Options{})
	if err != nil {
		t.Fatal(err)
	}
	stores := map[string]object.Store{
		"file":         file,
		"file wrapped": wrapper{behind},
		"mem":          object.NewMem("putfrom"),
		"s3":           openMinIO(t, m, "cairn-putfrom", object.Options{}),
	}
	for name, s := range stores {
		t.Run(name, func(t *testing.T) {
			if err := s.Create(ctx); err != nil {
				t.Fatal(err)
			}
			for _, size := range []int{0, 5, 20<<20 + 7} {
				data := make([]byte, size)
				for i := range data {
					data[i] = byte(i*7 + i>>12)
				}
				key := fmt.Sprintf("meta/object-%d", size)
				var r io.ReaderAt = bytes.NewReader(data)
				if name != "mem" {
					r = smallReads{bytes.NewReader(data)}
				}
				if err := object.PutFrom(ctx, s, key, r, int64(size)); err != nil {
					t.Fatalf("PutFrom %d bytes: %v", size, err)
				}
				got, err := s.Get(ctx, key, 0, -1)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, data) {
					t.Errorf("%d bytes stored with PutFrom read back as %d other bytes", size, len(got))
				}
			}
		})
	}
}
