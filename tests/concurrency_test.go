package tests

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

// TestConcurrentWriters runs writers of distinct files and namespace
// changers side by side, then checks every file.
func TestConcurrentWriters(t *testing.T) {
	v := newVolume(t)
	const writers, changers = 6, 3
	var wg sync.WaitGroup
	errs := make(chan error, writers+changers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			data := pattern(uint64(100+w), (w+1)*(3<<20)+w*777)
			f, err := os.Create(v.path(fmt.Sprintf("w%d", w)))
			if err != nil {
				errs <- err
				return
			}
			// Out of order pieces: the second half, then the first.
			half := len(data) / 2
			if _, err := f.WriteAt(data[half:], int64(half)); err != nil {
				errs <- err
			}
			if _, err := f.WriteAt(data[:half], 0); err != nil {
				errs <- err
			}
			if err := f.Close(); err != nil {
				errs <- err
			}
		}()
	}
	for c := range changers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dir := v.path(fmt.Sprintf("c%d", c))
			if err := os.Mkdir(dir, 0o755); err != nil {
				errs <- err
				return
			}
			for i := range 200 {
				a, b := fmt.Sprintf("%s/f%d", dir, i), fmt.Sprintf("%s/g%d", dir, i)
				if err := os.WriteFile(a, []byte(a), 0o644); err != nil {
					errs <- err
					return
				}
				if err := unix.Rename(a, b); err != nil {
					errs <- err
					return
				}
				if i%2 == 0 {
					if err := os.Remove(b); err != nil {
						errs <- err
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent work: %v", err)
	}
	check := func(what string) {
		for w := range writers {
			want := pattern(uint64(100+w), (w+1)*(3<<20)+w*777)
			got := readFile(t, v.path(fmt.Sprintf("w%d", w)))
			if !bytes.Equal(got, want) {
				t.Errorf("%s: w%d: %s", what, w, diffBytes(got, want))
			}
		}
		for c := range changers {
			names, err := os.ReadDir(v.path(fmt.Sprintf("c%d", c)))
			must(t, err, "readdir")
			if len(names) != 100 {
				t.Errorf("%s: c%d holds %d entries, want 100", what, c, len(names))
			}
		}
	}
	check("after the work")
	v.remount(t)
	check("after remount")
}

// TestReaddirWhileChanging lists a directory in small batches while other
// names come and go: every name present throughout must be listed exactly
// once (POSIX leaves only the changing names unspecified).
func TestReaddirWhileChanging(t *testing.T) {
	v := newVolume(t)
	dir := v.path("busy")
	must(t, os.Mkdir(dir, 0o755), "mkdir")
	var keep []string
	for i := range 1500 {
		name := fmt.Sprintf("keep-%04d", i)
		keep = append(keep, name)
		must(t, os.WriteFile(dir+"/"+name, nil, 0o644), "create")
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			name := fmt.Sprintf("%s/tmp-%d", dir, i)
			os.WriteFile(name, nil, 0o644)
			if i >= 10 {
				os.Remove(fmt.Sprintf("%s/tmp-%d", dir, i-10))
			}
		}
	}()
	f, err := os.Open(dir)
	must(t, err, "open dir")
	var got []string
	for {
		names, err := f.Readdirnames(37)
		for _, n := range names {
			if len(n) > 4 && n[:5] == "keep-" {
				got = append(got, n)
			}
		}
		if err != nil || len(names) == 0 {
			break
		}
	}
	f.Close()
	close(stop)
	<-done
	slices.Sort(got)
	if !slices.Equal(got, keep) {
		dups := len(got) - len(slices.Compact(slices.Clone(got)))
		t.Errorf("listed %d stable names (%d duplicates), want each of %d exactly once", len(got), dups, len(keep))
	}
}
