package object

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"cairn/internal/atomicfile"
)

var _ StreamPutter = (*File)(nil)

// PutFrom implements StreamPutter: the object is copied into a temporary
// file beside its place, flushed, and renamed into place. It always
// flushes, whatever DeferSync says: a large object is rare and its
// caller does not call Sync.
func (f *File) PutFrom(ctx context.Context, key string, r io.ReaderAt, size int64) error {
	if err := checkKey(key); err != nil {
		return err
	}
	p := f.path(key)
	dir := filepath.Dir(p)
	err := f.copyInto(ctx, p, r, size)
	for try := 0; try < 5 && errors.Is(err, fs.ErrNotExist); try++ {
		if err = os.MkdirAll(dir, 0o755); err == nil {
			err = f.copyInto(ctx, p, r, size)
		}
	}
	if err != nil {
		return fmt.Errorf("put %s: %w", key, err)
	}
	if err := atomicfile.SyncDir(dir); err != nil {
		return fmt.Errorf("put %s: %w", key, err)
	}
	return nil
}

func (f *File) copyInto(ctx context.Context, path string, r io.ReaderAt, size int64) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), TempPrefix+"*")
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := io.Copy(tmp, &contextReader{ctx: ctx, r: io.NewSectionReader(r, 0, size)}); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	done = true
	return nil
}

// contextReader stops a long copy when its context ends.
type contextReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *contextReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
