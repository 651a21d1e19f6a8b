// Package warmup fetches the blocks of files into the local disk cache of
// the cairn mount that serves them, ahead of use. It works through the
// mount, as any reader: each file is read to its end with the kernel's
// page cache for it dropped before (so that the reads reach the mount,
// which fetches missing blocks from the object store and keeps them in
// its disk cache) and after (so that warming does not crowd the page
// cache). It knows nothing of the metadata engine or the object store.
// 'cairn warmup' uses it for a mount without a control channel (an older
// release); otherwise the mount warms itself (package control).
package warmup

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// Progress counts what Files read so far.
type Progress struct {
	Files int64
	Bytes int64
}

// Files reads every regular file under paths (directories recursively,
// symlinks not followed), workers files at once. report, when not nil,
// is called after each file. It stops at the first failure.
func Files(ctx context.Context, paths []string, workers int, report func(Progress)) (Progress, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	files := make(chan string)
	var done Progress
	var count, bytes atomic.Int64
	var mu sync.Mutex
	var failed error
	fail := func(err error) {
		mu.Lock()
		if failed == nil {
			failed = err
			cancel()
		}
		mu.Unlock()
	}
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 1<<20)
			for path := range files {
				n, err := readFile(ctx, path, buf)
				if err != nil {
					fail(err)
					continue
				}
				p := Progress{Files: count.Add(1), Bytes: bytes.Add(n)}
				if report != nil {
					report(p)
				}
			}
		}()
	}
	for _, root := range paths {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.Type().IsRegular() {
				return nil
			}
			select {
			case files <- path:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
		if err != nil {
			fail(fmt.Errorf("walk %s: %w", root, err))
			break
		}
	}
	close(files)
	wg.Wait()
	done = Progress{Files: count.Load(), Bytes: bytes.Load()}
	mu.Lock()
	defer mu.Unlock()
	return done, failed
}

// readFile reads path to its end past the page cache and returns how many
// bytes it read.
func readFile(ctx context.Context, path string, buf []byte) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	fd := int(f.Fd())
	unix.Fadvise(fd, 0, 0, unix.FADV_DONTNEED)
	defer unix.Fadvise(fd, 0, 0, unix.FADV_DONTNEED)
	var total int64
	for {
		if err := ctx.Err(); err != nil {
			return total, err
		}
		n, err := f.Read(buf)
		total += int64(n)
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, fmt.Errorf("read %s: %w", path, err)
		}
	}
}
