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
	// Size is the bytes of the regular files (their lengths); known only
	// when the tree was counted (Source "count").
	Size        uint64 `json:"size,omitempty"`
	Space       uint64 `json:"space"` // each regular file's length rounded up to 4 KiB, as quotas count
	Files       uint64 `json:"files"`
	Directories uint64 `json:"directories"` // the tree's root included
	// Source says where the figures come from: "statistics" (the
	// engine's directory statistics, see meta.DirStatStore) or "count"
	// (every directory's entries read).
	Source string `json:"source"`
	// Counted is how many directories had no statistics and were counted
	// instead (Source "statistics" only): a volume formatted before
	// statistics existed has none until fsck --repair.
	Counted uint64 `json:"counted_directories,omitempty"`
	// Biggest are the largest entries directly under the root, largest
	// first, each with what its own tree holds.
	Biggest []Part `json:"biggest,omitempty"`
}

// Part is one entry directly under a summarized directory.
type Part struct {
	Name        string `json:"name"`
	Directory   bool   `json:"directory"`
	Size        uint64 `json:"size,omitempty"`
	Space       uint64 `json:"space"`
	Files       uint64 `json:"files"`
	Directories uint64 `json:"directories"`
}

// SummaryOptions are Summarize's knobs.
type SummaryOptions struct {
	Top     int // how many of the biggest entries directly under the root to list
	Workers int // directories read at once
	// Count reads every directory's entries even where the engine keeps
	// statistics: exact lengths (Size), at the cost of a full walk.
	Count bool
	// Check, when not nil, is called with every directory whose figures
	// the summary uses, before it uses them; its error ends the summary
	// (a caller who may not list a directory, say).
	Check func(dir meta.Ino, a *meta.Attr) error
	// Report, when not nil, is called with the totals so far as
	// directories are read.
	Report func(Summary)
}

// counts is a tree's tally, added to by many walkers at once.
type counts struct{ size, space, files, dirs atomic.Uint64 }

func (c *counts) addFile(a *meta.Attr) {
	c.files.Add(1)
	if a != nil && a.Type == meta.TypeFile {
		c.size.Add(a.Length)
		c.space.Add(meta.SpaceOf(a))
	}
}

// readdirPage is how many entries one Readdir call returns.
const readdirPage = 1000

// Summarize returns what the tree under ino holds and its biggest
// entries directly under ino: from the engine's directory statistics
// where it keeps them (one read per directory, batched, and a listing
// of only the directories that hold subdirectories), else, or with
// opt.Count, by reading every directory's entries.
func Summarize(ctx context.Context, eng meta.Engine, ino meta.Ino, opt SummaryOptions) (Summary, error) {
	a, err := eng.GetAttr(ctx, ino)
	if err != nil {
		return Summary{}, fmt.Errorf("attributes of inode %d: %w", ino, err)
	}
	if a.Type != meta.TypeDirectory {
		s := Summary{Files: 1, Source: "count"}
		if a.Type == meta.TypeFile {
			s.Size, s.Space = a.Length, meta.SpaceOf(&a)
		}
		return s, nil
	}
	if opt.Check != nil {
		if err := opt.Check(ino, &a); err != nil {
			return Summary{}, err
		}
	}
	w := &walker{ctx: ctx, eng: eng, slots: make(chan struct{}, max(opt.Workers, 1)), opt: opt}
	if stats, ok := meta.Capability[meta.DirStatStore](eng); ok && !opt.Count {
		return w.fromStatistics(stats, ino)
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
	s.Source = "count"
	return withBiggest(s, entries, parts, opt.Top), nil
}

// withBiggest adds to s the top biggest of entries, whose tallies are
// parts.
func withBiggest(s Summary, entries []meta.Entry, parts []*counts, top int) Summary {
	for i, e := range entries {
		p := parts[i].summary()
		s.Biggest = append(s.Biggest, Part{Name: e.Name, Directory: e.Type == meta.TypeDirectory, Size: p.Size, Space: p.Space, Files: p.Files, Directories: p.Directories})
	}
	sort.SliceStable(s.Biggest, func(i, j int) bool {
		a, b := s.Biggest[i], s.Biggest[j]
		return a.Space > b.Space || (a.Space == b.Space && a.Size > b.Size)
	})
	if len(s.Biggest) > top {
		s.Biggest = s.Biggest[:top]
	}
	return s
}

func (c *counts) summary() Summary {
	return Summary{Size: c.size.Load(), Space: c.space.Load(), Files: c.files.Load(), Directories: c.dirs.Load()}
}

type walker struct {
	ctx   context.Context
	eng   meta.Engine
	slots chan struct{} // one per directory being read
	wg    sync.WaitGroup
	total counts
	opt   SummaryOptions

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

func (w *walker) report(s Summary) {
	if w.opt.Report != nil {
		w.opt.Report(s)
	}
}

// check passes directory e to opt.Check, with its attributes (read when
// the listing did not carry them).
func (w *walker) check(e meta.Entry) error {
	if w.opt.Check == nil {
		return nil
	}
	a := e.Attr
	if a == nil {
		got, err := w.eng.GetAttr(w.ctx, e.Ino)
		if err != nil {
			return fmt.Errorf("attributes of directory inode %d: %w", e.Ino, err)
		}
		a = &got
	}
	return w.opt.Check(e.Ino, a)
}

// visit counts entry e into the total and into part; a directory is read
// by a goroutine of its own when a slot is free, else here.
func (w *walker) visit(e meta.Entry, part *counts) {
	if e.Type != meta.TypeDirectory {
		w.total.addFile(e.Attr)
		part.addFile(e.Attr)
		return
	}
	w.total.dirs.Add(1)
	part.dirs.Add(1)
	select {
	case w.slots <- struct{}{}:
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			w.walk(e, part)
			<-w.slots
		}()
	default:
		w.walk(e, part)
	}
}

func (w *walker) walk(dir meta.Entry, part *counts) {
	if w.failure() != nil {
		return
	}
	if err := w.check(dir); err != nil {
		w.fail(err)
		return
	}
	entries, err := w.list(dir.Ino)
	if err != nil {
		w.fail(err)
		return
	}
	for _, e := range entries {
		w.visit(e, part)
	}
	w.report(w.total.summary())
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
