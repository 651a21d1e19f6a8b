package object

import "context"

// GetterInto is implemented by stores that can read a whole object into a
// buffer the caller provides. A caller that reads many objects of one size
// (a block store) recycles its buffers instead of having a new one
// allocated and zeroed for every object.
type GetterInto interface {
	// GetInto returns the whole object key: in buf[:size] when its size is
	// at most cap(buf), else in a new slice. Errors are Get's.
	GetInto(ctx context.Context, key string, buf []byte) ([]byte, error)
}

// GetInto reads the whole object key from s, into buf when s can.
func GetInto(ctx context.Context, s Store, key string, buf []byte) ([]byte, error) {
	if g, ok := s.(GetterInto); ok {
		return g.GetInto(ctx, key, buf)
	}
	return s.Get(ctx, key, 0, -1)
}
