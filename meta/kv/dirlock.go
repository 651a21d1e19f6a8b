package kv

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// dirLock is an exclusive flock on a file in an embedded store's
// directory. The file holds the holder's pid and host, so that a second
// process (or a second open in the same process) is told who holds it
// instead of hanging or corrupting the store. The kernel drops the lock
// when the holder dies.
type dirLock struct{ f *os.File }

// ErrInUse is why a Badger directory that another process holds (a
// mount, most often) does not open.
var ErrInUse = errors.New("only one process may open it")

const lockFileName = "cairn.lock"

func lockDir(dir string) (*dirLock, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create badger directory: %w", err)
	}
	path := filepath.Join(dir, lockFileName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder, _ := os.ReadFile(path)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			who := strings.TrimSpace(string(holder))
			if who == "" {
				who = "another process"
			}
			return nil, fmt.Errorf("badger directory %s is in use by %s; %w: stop that one, or use a network engine (etcd, tikv) for several clients", dir, who, ErrInUse)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	host, _ := os.Hostname()
	if err := f.Truncate(0); err == nil {
		fmt.Fprintf(f, "pid %d on %s\n", os.Getpid(), host)
	}
	return &dirLock{f: f}, nil
}

func (l *dirLock) release() {
	syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	l.f.Close()
}
