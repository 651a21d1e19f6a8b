package control

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"syscall"

	"cairn/meta"
)

// warmupPage is how many entries one Readdir of warmup returns.
const warmupPage = 1000

// warmup reads every regular file at or under Path (symbolic links not
// followed) to its end through the mount's own file system, Threads files
// at once, so that the blocks land in the mount's disk cache without
// passing through the kernel and its page cache. The caller must be
// allowed to list every directory and read every file, as for cat.
func (c *call) warmup() (any, error) {
	shown := c.shown()
	at, err := c.resolveShown(c.req.Path, shown)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(c.ctx)
	defer cancel()
	var files, bytes atomic.Int64
	c.watch(func() any { return Warmed{Files: files.Load(), Bytes: bytes.Load()} })
	var once sync.Once
	var failed error
	fail := func(err error) {
		once.Do(func() { failed = err; cancel() })
	}
	work := make(chan place)
	var wg sync.WaitGroup
	for range max(c.req.Threads, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 1<<20)
			for f := range work {
				n, err := c.readAll(ctx, f, buf)
				if err != nil {
					fail(err)
					continue
				}
				files.Add(1)
				bytes.Add(n)
			}
		}()
	}
	if err := c.walkFiles(ctx, at, work); err != nil {
		fail(err)
	}
	close(work)
	wg.Wait()
	if failed != nil {
		return nil, fmt.Errorf("warm up %s: %w", shown, failed)
	}
	return Warmed{Files: files.Load(), Bytes: bytes.Load()}, nil
}

// walkFiles sends every regular file at or under at to work, listing
// directories as the caller.
func (c *call) walkFiles(ctx context.Context, at place, work chan<- place) error {
	if at.attr.Type == meta.TypeFile {
		select {
		case work <- at:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if !at.attr.IsDir() {
		return nil
	}
	if err := meta.Access(&at.attr, c.cred, meta.MayRead|meta.MayExec); err != nil {
		return fmt.Errorf("list directory %q: %w", at.name, err)
	}
	for after := ""; ; {
		entries, err := c.v.Client().Readdir(ctx, at.ino, after, warmupPage, true)
		if err != nil {
			return fmt.Errorf("list directory %q: %w", at.name, err)
		}
		if len(entries) == 0 {
			return nil
		}
		for _, e := range entries {
			if e.Attr == nil || (e.Type != meta.TypeFile && e.Type != meta.TypeDirectory) {
				continue
			}
			if err := c.walkFiles(ctx, place{parent: at.ino, name: e.Name, ino: e.Ino, attr: *e.Attr}, work); err != nil {
				return err
			}
		}
		after = entries[len(entries)-1].Name
	}
}

// readAll reads file f to its end through the mount's file system and
// returns how many bytes it read.
func (c *call) readAll(ctx context.Context, f place, buf []byte) (int64, error) {
	if err := meta.Access(&f.attr, c.cred, meta.MayRead); err != nil {
		return 0, fmt.Errorf("read %q: %w", f.name, err)
	}
	fh, _, err := c.v.Open(ctx, c.cred, f.ino, syscall.O_RDONLY)
	if errors.Is(err, meta.ErrNotFound) {
		return 0, nil // removed meanwhile
	}
	if err != nil {
		return 0, fmt.Errorf("open %q: %w", f.name, err)
	}
	defer c.v.Release(ctx, fh, 0)
	var total int64
	for {
		n, err := c.v.Read(ctx, fh, buf, uint64(total))
		total += int64(n)
		if err != nil {
			return total, fmt.Errorf("read %q: %w", f.name, err)
		}
		if n == 0 {
			return total, nil
		}
	}
}
