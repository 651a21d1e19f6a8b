package object_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"cairn/internal/testenv"
	"cairn/object"
)

// TestPutFrom stores objects with PutFrom in every store — streamed in
// the file store and S3 (MinIO, larger than one part), read whole in
// memory — and reads them back.
func TestPutFrom(t *testing.T) {
	ctx := context.Background()
	m := testenv.MinIO(t)
	file, err := object.Open("file", t.TempDir(), object.Options{})
	if err != nil {
		t.Fatal(err)
	}
	stores := map[string]object.Store{
		"file": file,
		"mem":  object.NewMem("putfrom"),
		"s3":   openMinIO(t, m, "cairn-putfrom", object.Options{}),
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
				if err := object.PutFrom(ctx, s, key, bytes.NewReader(data), int64(size)); err != nil {
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
			_, streams := s.(object.StreamPutter)
			if want := name != "mem"; streams != want {
				t.Errorf("%s store streams: %v, want %v", name, streams, want)
			}
		})
	}
}
