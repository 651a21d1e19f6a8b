package object

import (
	"cairn/internal/atomicfile"
	"cairn/internal/directio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
)

// TempPrefix starts the names of objects being written; List skips them and
// no key may contain a segment that starts with it.
const TempPrefix = ".cairn-tmp-"

// File keeps each object in a file under a directory; a key's "/" become
// subdirectories. Put writes a temporary file in the target directory,
// fsyncs it, renames it over the key and fsyncs the directory, so a crash
// leaves the old object or the new one, never a torn one. Temporary files
// left by a crash are skipped by List.
//
// With DeferSync (Options.DeferSync), Put does not flush the file and its
// directory: a crash may then leave a renamed object torn, so the caller
// calls Sync (see Syncer) before it relies on what it put.
type File struct {
	root      string
	deferSync bool
	unsynced  unsynced    // with deferSync: what Sync must flush
	noDirect  atomic.Bool // O_DIRECT was refused; write through the page cache
}

var _ Store = (*File)(nil)

// NewFile returns the store rooted at dir (made absolute).
func NewFile(dir string) (*File, error) {
	if dir == "" {
		return nil, errors.New("no bucket directory given (use --bucket DIR)")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("bucket directory %s: %w", dir, err)
	}
	return &File{root: abs}, nil
}

func (f *File) String() string { return "file://" + f.root }

// Create makes the directory and proves that a file can be written in it.
func (f *File) Create(ctx context.Context) error {
	if err := os.MkdirAll(f.root, 0o755); err != nil {
		return fmt.Errorf("cannot create bucket directory %s: %s", f.root, errText(err))
	}
	tmp, err := os.CreateTemp(f.root, TempPrefix+"probe-")
	if err != nil {
		return fmt.Errorf("bucket directory %s is not writable: %s", f.root, errText(err))
	}
	name := tmp.Name()
	_, werr := tmp.Write([]byte("cairn"))
	cerr := tmp.Close()
	os.Remove(name)
	if werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("bucket directory %s is not writable: %s", f.root, errText(werr))
	}
	return nil
}

// errText is the cause of a path error without the path, which the caller
// names once already.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

func (f *File) path(key string) string {
	return filepath.Join(f.root, filepath.FromSlash(key))
}

// Path is the file that holds object key, for a caller that moves it
// elsewhere (a rename) rather than copying it out.
func (f *File) Path(key string) string { return f.path(key) }

func (f *File) Put(ctx context.Context, key string, data []byte) error {
	if err := checkKey(key); err != nil {
		return err
	}
	p := f.path(key)
	dir := filepath.Dir(p)
	err := atomicfile.WritePreferDirect(p, data, TempPrefix, !f.deferSync, &f.noDirect)
	// A Delete may remove the emptied directory between MkdirAll and the
	// write; try a few times.
	for try := 0; try < 5 && errors.Is(err, fs.ErrNotExist); try++ {
		if err = os.MkdirAll(dir, 0o755); err == nil {
			err = atomicfile.WritePreferDirect(p, data, TempPrefix, !f.deferSync, &f.noDirect)
		}
	}
	if err != nil {
		return fmt.Errorf("put %s: %w", key, err)
	}
	if f.deferSync {
		f.unsynced.add(p)
		return nil
	}
	if err := atomicfile.SyncDir(dir); err != nil {
		return fmt.Errorf("put %s: %w", key, err)
	}
	return nil
}

func (f *File) Get(ctx context.Context, key string, off, limit int64) ([]byte, error) {
	if checkKey(key) != nil {
		return nil, notExist(key)
	}
	fh, err := os.Open(f.path(key))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, notExist(key)
		}
		return nil, fmt.Errorf("get %s: %w", key, err)
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, fmt.Errorf("get %s: %w", key, err)
	}
	if st.IsDir() {
		return nil, notExist(key)
	}
	size := st.Size()
	if off < 0 {
		off = 0
	}
	if off >= size {
		return []byte{}, nil
	}
	n := size - off
	if limit >= 0 && limit < n {
		n = limit
	}
	if off == 0 && n == size && size >= directio.Min && !f.noDirect.Load() {
		data, err := directio.ReadAll(fh, size)
		switch {
		case errors.Is(err, directio.ErrRefused):
			f.noDirect.Store(true) // the file system refuses it: stop trying
		case err != nil:
			return nil, fmt.Errorf("get %s: %w", key, err)
		case data != nil:
			return data, nil
		}
	}
	buf := make([]byte, n)
	got, err := fh.ReadAt(buf, off)
	if err != nil && !(errors.Is(err, io.EOF) && int64(got) == n) {
		return nil, fmt.Errorf("get %s: %w", key, err)
	}
	return buf, nil
}

func (f *File) Head(ctx context.Context, key string) (Info, error) {
	if checkKey(key) != nil {
		return Info{}, notExist(key)
	}
	st, err := os.Stat(f.path(key))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Info{}, notExist(key)
		}
		return Info{}, fmt.Errorf("head %s: %w", key, err)
	}
	if st.IsDir() {
		return Info{}, notExist(key)
	}
	return Info{Key: key, Size: st.Size(), ModTime: st.ModTime()}, nil
}

func (f *File) Delete(ctx context.Context, key string) error {
	if checkKey(key) != nil {
		return nil
	}
	p := f.path(key)
	if st, err := os.Lstat(p); err == nil && st.IsDir() {
		return nil // a directory of other keys, not an object
	}
	err := os.Remove(p)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("delete %s: %w", key, err)
	}
	// Remove the directories the key emptied; a directory that is not
	// empty, or that a Put is filling again, stays.
	for dir := filepath.Dir(p); dir != f.root && strings.HasPrefix(dir, f.root); dir = filepath.Dir(dir) {
		if os.Remove(dir) != nil {
			break
		}
	}
	return nil
}

// List walks the directories in key order: a directory "a" sorts as "a/",
// so "a.b" comes before everything under "a". Subtrees that cannot hold a
// key with the prefix, or after after, are not read.
func (f *File) List(ctx context.Context, prefix, after string, limit int) ([]Info, error) {
	w := lister{prefix: prefix, after: after, limit: listLimit(limit), ctx: ctx}
	if err := w.walk(f.root, ""); err != nil && !errors.Is(err, errListFull) {
		return nil, fmt.Errorf("list %s: %w", prefix, err)
	}
	return w.out, nil
}

var errListFull = errors.New("list page full")

type lister struct {
	ctx           context.Context
	prefix, after string
	limit         int
	out           []Info
}

func (w *lister) walk(dir, keyPrefix string) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	type entry struct {
		sortKey string
		e       fs.DirEntry
	}
	sorted := make([]entry, 0, len(entries))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), TempPrefix) {
			continue
		}
		k := keyPrefix + e.Name()
		if e.IsDir() {
			k += "/"
		}
		sorted = append(sorted, entry{k, e})
	}
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].sortKey < sorted[j].sortKey })
	for _, s := range sorted {
		k := s.sortKey
		if s.e.IsDir() {
			if !strings.HasPrefix(k, w.prefix) && !strings.HasPrefix(w.prefix, k) {
				continue
			}
			if k < w.after && !strings.HasPrefix(w.after, k) {
				continue
			}
			if err := w.walk(filepath.Join(dir, s.e.Name()), k); err != nil {
				return err
			}
			continue
		}
		if !strings.HasPrefix(k, w.prefix) || k <= w.after {
			continue
		}
		info, err := s.e.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return err
		}
		w.out = append(w.out, Info{Key: k, Size: info.Size(), ModTime: info.ModTime()})
		if len(w.out) >= w.limit {
			return errListFull
		}
	}
	return nil
}
