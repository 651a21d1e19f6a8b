package inspect

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"

	"cairn/meta"
)

// Summary is what a tree holds. A file with several hard links in the
// tree counts once per link.
type Summary struct {
	Size        uint64 `json:"size"` // bytes of the regular files (their lengths)
	Files       uint64 `json:"files"`
	Directories uint64 `json:"directories"` // the tree's root included
	// Biggest are the largest entries directly under the root, largest
	// first, each with what its own tree holds.
	Biggest []Part `json:"biggest,omitempty"`
}

// Part is one entry directly under a summarized directory.
type Part struct {
	Name        string `json:"name"`
	Directory   bool   `json:"directory"`
	Size        uint64 `json:"size"`
	Files       uint64 `json:"files"`
	Directories uint64 `json:"directories"`
}

// counts is a tree's tally, added to by many walkers at once.
type counts struct{ size, files, dirs atomic.Uint64 }

// readdirPage is how many entries one Readdir call returns.
const readdirPage = 1000

// Summarize walks the tree under ino through the engine, reading up to
// workers directories at once, and returns its totals and its top
// biggest entries directly under ino. report, when not nil, is called
// with the totals so far as directories are read.
func Summarize(ctx context.Context, eng meta.Engine, ino meta.Ino, top, workers int, report func(Summary)) (Summary, error) {
	a, err := eng.GetAttr(ctx, ino)
	if err != nil {
		return Summary{}, fmt.Errorf("attributes of inode %d: %w", ino, err)
	}
	w := &walker{ctx: ctx, eng: eng, slots: make(chan struct{}, max(workers, 1)), report: report}
	if a.Type != meta.TypeDirectory {
		var s Summary
		s.Files = 1
		if a.Type == meta.TypeFile {
			s.Size = a.Length
		}
		return s, nil
	}
	w.total.dirs.Add(1)
	entries, err := w.list(ino)
	if err != nil {
		return Summary{}, err
	}
	parts := make([]*counts, len(entries))
	for i, e := range entries {
		parts[i] = &counts{}
		w.visit(e, parts[i])
	}
	w.wg.Wait()
	if err := w.failure(); err != nil {
		return Summary{}, err
	}
	s := w.total.summary()
	for i, e := range entries {
		p := parts[i].summary()
		s.Biggest = append(s.Biggest, Part{Name: e.Name, Directory: e.Type == meta.TypeDirectory, Size: p.Size, Files: p.Files, Directories: p.Directories})
	}
	sort.SliceStable(s.Biggest, func(i, j int) bool { return s.Biggest[i].Size > s.Biggest[j].Size })
	if len(s.Biggest) > top {
		s.Biggest = s.Biggest[:top]
	}
	return s, nil
}

func (c *counts) summary() Summary {
	return Summary{Size: c.size.Load(), Files: c.files.Load(), Directories: c.dirs.Load()}
}

type walker struct {
	ctx    context.Context
	eng    meta.Engine
	slots  chan struct{} // one per directory being read
	wg     sync.WaitGroup
	total  counts
	report func(Summary)

	mu  sync.Mutex
	err error
}

func (w *walker) fail(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.err = err
	}
}

func (w *walker) failure() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// visit counts entry e into the total and into part; a directory is read
// by a goroutine of its own when a slot is free, else here.
func (w *walker) visit(e meta.Entry, part *counts) {
	if e.Type != meta.TypeDirectory {
		var size uint64
		if e.Type == meta.TypeFile && e.Attr != nil {
			size = e.Attr.Length
		}
		for _, c := range []*counts{&w.total, part} {
			c.files.Add(1)
			c.size.Add(size)
		}
		return
	}
	w.total.dirs.Add(1)
	part.dirs.Add(1)
	select {
	case w.slots <- struct{}{}:
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			w.walk(e.Ino, part)
			<-w.slots
		}()
	default:
		w.walk(e.Ino, part)
	}
}

func (w *walker) walk(dir meta.Ino, part *counts) {
	if w.failure() != nil {
		return
	}
	entries, err := w.list(dir)
	if err != nil {
		w.fail(err)
		return
	}
	for _, e := range entries {
		w.visit(e, part)
	}
	if w.report != nil {
		w.report(w.total.summary())
	}
}

// list reads every entry of directory dir, with attributes.
func (w *walker) list(dir meta.Ino) ([]meta.Entry, error) {
	var all []meta.Entry
	after := ""
	for {
		page, err := w.eng.Readdir(w.ctx, dir, after, readdirPage, true)
		if err != nil {
			return nil, fmt.Errorf("read directory inode %d: %w", dir, err)
		}
		if len(page) == 0 {
			return all, nil
		}
		all = append(all, page...)
		after = page[len(page)-1].Name
	}
}
