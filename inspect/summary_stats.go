package inspect

import (
	"fmt"
	"sync"
	"sync/atomic"

	"cairn/meta"
)

// statDir is a directory the statistics walk has found and not yet
// accounted for; attr is nil when its parent was listed without
// attributes.
type statDir struct {
	ino  meta.Ino
	attr *meta.Attr
	part *counts
}

// fromStatistics summarizes the tree under root from the engine's
// directory statistics, which hold, per directory, the space and the
// number of its entries (meta.DirStatStore). The root is listed (its
// entries make the biggest list); below it, a directory costs its share
// of one DirStats call per level of the tree, and is listed only when
// its link count says it holds subdirectories (or when it has no
// statistics, and is counted instead). Lengths are not in the
// statistics: Size is left out but for files directly under root, unless
// every directory was read (then the summary is a count).
func (w *walker) fromStatistics(stats meta.DirStatStore, root meta.Ino) (Summary, error) {
	w.total.dirs.Add(1)
	entries, err := w.list(root)
	if err != nil {
		return Summary{}, err
	}
	parts := make([]*counts, len(entries))
	var level []statDir
	for i, e := range entries {
		parts[i] = &counts{}
		if e.Type == meta.TypeDirectory {
			level = append(level, statDir{ino: e.Ino, attr: e.Attr, part: parts[i]})
			continue
		}
		w.total.addFile(e.Attr)
		parts[i].addFile(e.Attr)
	}
	var counted atomic.Uint64
	for len(level) > 0 {
		if level, err = w.statLevel(stats, level, &counted); err != nil {
			return Summary{}, err
		}
		s := w.total.summary()
		s.Size = 0
		w.report(s)
	}
	s := w.total.summary()
	if counted.Load() == s.Directories-1 {
		// Every directory was read (none below root, or none had
		// statistics): a count, lengths included.
		s.Source = "count"
		return withBiggest(s, entries, parts, w.opt.Top), nil
	}
	s.Size, s.Source, s.Counted = 0, "statistics", counted.Load()
	s = withBiggest(s, entries, parts, w.opt.Top)
	for i := range s.Biggest {
		if s.Biggest[i].Directory {
			s.Biggest[i].Size = 0
		}
	}
	return s, nil
}

// statLevel accounts for the directories of one level of the tree and
// returns the subdirectories they hold (the next level).
func (w *walker) statLevel(stats meta.DirStatStore, level []statDir, counted *atomic.Uint64) ([]statDir, error) {
	w.each(level, func(d *statDir) error {
		if d.attr == nil {
			a, err := w.eng.GetAttr(w.ctx, d.ino)
			if err != nil {
				return fmt.Errorf("attributes of directory inode %d: %w", d.ino, err)
			}
			d.attr = &a
		}
		if w.opt.Check != nil {
			return w.opt.Check(d.ino, d.attr)
		}
		return nil
	})
	if err := w.failure(); err != nil {
		return nil, err
	}
	inos := make([]meta.Ino, len(level))
	for i, d := range level {
		inos[i] = d.ino
	}
	figures, err := stats.DirStats(w.ctx, inos)
	if err != nil {
		return nil, fmt.Errorf("read the directory statistics: %w", err)
	}
	var mu sync.Mutex
	var next []statDir
	found := func(d *statDir, e meta.Entry) {
		mu.Lock()
		next = append(next, statDir{ino: e.Ino, attr: e.Attr, part: d.part})
		mu.Unlock()
	}
	w.each(level, func(d *statDir) error {
		w.total.dirs.Add(1)
		d.part.dirs.Add(1)
		st, ok := figures[d.ino]
		if !ok {
			counted.Add(1)
			entries, err := w.list(d.ino)
			for _, e := range entries {
				if e.Type == meta.TypeDirectory {
					found(d, e)
				} else {
					w.total.addFile(e.Attr)
					d.part.addFile(e.Attr)
				}
			}
			return err
		}
		subdirs := int64(max(d.attr.Nlink, 2) - 2)
		files := uint64(max(st.Inodes-subdirs, 0))
		space := uint64(max(st.Space, 0))
		for _, c := range []*counts{&w.total, d.part} {
			c.files.Add(files)
			c.space.Add(space)
		}
		if subdirs == 0 {
			return nil
		}
		// Attributes with the listing when they cost little next to
		// one look-up per subdirectory.
		plus := int64(files) <= 8*subdirs
		return w.listDirs(d.ino, plus, func(e meta.Entry) { found(d, e) })
	})
	return next, w.failure()
}

// each calls fn for every directory of level, up to opt.Workers at once;
// the first error is the walk's failure.
func (w *walker) each(level []statDir, fn func(d *statDir) error) {
	var wg sync.WaitGroup
	for i := range level {
		if w.failure() != nil {
			break
		}
		w.slots <- struct{}{}
		wg.Add(1)
		go func(d *statDir) {
			defer wg.Done()
			defer func() { <-w.slots }()
			if err := fn(d); err != nil {
				w.fail(err)
			}
		}(&level[i])
	}
	wg.Wait()
}

// listDirs calls found with every subdirectory of dir.
func (w *walker) listDirs(dir meta.Ino, plus bool, found func(meta.Entry)) error {
	after := ""
	for {
		page, err := w.eng.Readdir(w.ctx, dir, after, readdirPage, plus)
		if err != nil {
			return fmt.Errorf("read directory inode %d: %w", dir, err)
		}
		if len(page) == 0 {
			return nil
		}
		for _, e := range page {
			if e.Type == meta.TypeDirectory {
				found(e)
			}
		}
		after = page[len(page)-1].Name
	}
}
