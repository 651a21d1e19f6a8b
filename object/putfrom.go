package object

import (
	"context"
	"fmt"
	"io"
)

// StreamPutter is implemented by stores that can store an object read
// from r without holding it in memory whole: what large objects such as
// metadata backups need. PutFrom stores the size bytes of r from offset 0
// under key, as atomically as Put; it may read r more than once (a retry
// starts again from the beginning) and does not keep r once it returns.
type StreamPutter interface {
	PutFrom(ctx context.Context, key string, r io.ReaderAt, size int64) error
}

// PutFrom stores the size bytes of r under key in s: streamed where s, or
// a store behind s's wrappers, is a StreamPutter, otherwise read into
// memory and stored with Put. A wrapper says what it wraps with an
// Unwrap() Store method; one without a PutFrom of its own (such as the
// metrics wrapper) is passed by, so it does not see a streamed object.
func PutFrom(ctx context.Context, s Store, key string, r io.ReaderAt, size int64) error {
	for inner := s; inner != nil; {
		if p, ok := inner.(StreamPutter); ok {
			return p.PutFrom(ctx, key, r, size)
		}
		w, ok := inner.(interface{ Unwrap() Store })
		if !ok {
			break
		}
		inner = w.Unwrap()
	}
	data := make([]byte, size)
	if _, err := r.ReadAt(data, 0); err != nil && !(err == io.EOF && size == 0) {
		return fmt.Errorf("put %s: read the object: %w", key, err)
	}
	return s.Put(ctx, key, data)
}
