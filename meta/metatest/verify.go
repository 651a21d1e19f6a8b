package metatest

import (
	"context"
	"errors"
	"fmt"

	"cairn/meta"
)

// SpaceOf is what one inode adds to Usage.Space: a regular file's length
// rounded up to 4 KiB; nothing for other types.
func SpaceOf(a meta.Attr) uint64 {
	if a.Type != meta.TypeFile {
		return 0
	}
	return (a.Length + 4095) &^ 4095
}

// Verify walks the whole tree from the root and checks the counters an
// engine keeps: every directory's nlink is 2 plus its subdirectories and its
// Parent is the directory listing it; every other inode's nlink is the number
// of entries naming it; entry types match the inodes; Readdir pages are in
// strictly increasing byte order; every slice record lies inside its chunk
// and no referenced slice is in the dead-slice queue; and Usage equals what
// the tree holds.
// orphans are unlinked inodes not yet released, which Usage still counts.
// Verify is for quiet volumes: run it when no operation is in flight.
func Verify(ctx context.Context, e meta.Engine, orphans ...meta.Ino) error {
	type node struct {
		attr    meta.Attr
		refs    uint32
		subdirs uint32
	}
	var problems []error
	bad := func(format string, args ...any) {
		if len(problems) < 20 {
			problems = append(problems, fmt.Errorf(format, args...))
		}
	}
	root, err := e.GetAttr(ctx, meta.RootIno)
	if err != nil {
		return fmt.Errorf("GetAttr of the root: %w", err)
	}
	if root.Type != meta.TypeDirectory {
		bad("root has type %d, want a directory", root.Type)
	}
	if root.Parent != meta.RootIno {
		bad("root's Parent is %d, want %d", root.Parent, meta.RootIno)
	}
	nodes := map[meta.Ino]*node{meta.RootIno: {attr: root}}
	queue := []meta.Ino{meta.RootIno}
	for len(queue) > 0 {
		dir := queue[0]
		queue = queue[1:]
		after := ""
		for {
			ents, err := e.Readdir(ctx, dir, after, 500, false)
			if err != nil {
				return fmt.Errorf("Readdir %d after %q: %w", dir, after, err)
			}
			if len(ents) == 0 {
				break
			}
			for _, en := range ents {
				if en.Name <= after {
					bad("Readdir %d: %q comes after %q", dir, en.Name, after)
				}
				if en.Name == "." || en.Name == ".." {
					bad("Readdir %d lists %q", dir, en.Name)
				}
				after = en.Name
				n, seen := nodes[en.Ino]
				if !seen {
					a, err := e.GetAttr(ctx, en.Ino)
					if err != nil {
						bad("entry %q in %d names inode %d: GetAttr: %v", en.Name, dir, en.Ino, err)
						continue
					}
					n = &node{attr: a}
					nodes[en.Ino] = n
				}
				n.refs++
				if en.Type != n.attr.Type {
					bad("entry %q in %d has type %d, its inode %d type %d", en.Name, dir, en.Type, en.Ino, n.attr.Type)
				}
				if n.attr.IsDir() {
					if seen {
						bad("directory %d is listed twice (again as %q in %d)", en.Ino, en.Name, dir)
						continue
					}
					nodes[dir].subdirs++
					if n.attr.Parent != dir {
						bad("directory %q (%d) in %d has Parent %d", en.Name, en.Ino, dir, n.attr.Parent)
					}
					queue = append(queue, en.Ino)
				}
			}
		}
	}
	var want meta.Usage
	for ino, n := range nodes {
		want.Inodes++
		want.Space += SpaceOf(n.attr)
		if n.attr.IsDir() {
			if n.attr.Nlink != 2+n.subdirs {
				bad("directory %d has nlink %d, want %d (2 + %d subdirectories)", ino, n.attr.Nlink, 2+n.subdirs, n.subdirs)
			}
		} else if n.attr.Nlink != n.refs {
			bad("inode %d has nlink %d but %d entries", ino, n.attr.Nlink, n.refs)
		}
	}
	for _, ino := range orphans {
		if _, linked := nodes[ino]; linked {
			bad("orphan %d is still linked in the tree", ino)
			continue
		}
		a, err := e.GetAttr(ctx, ino)
		if err != nil {
			bad("orphan %d: GetAttr: %v", ino, err)
			continue
		}
		if a.Nlink != 0 {
			bad("orphan %d has nlink %d, want 0", ino, a.Nlink)
		}
		want.Inodes++
		want.Space += SpaceOf(a)
	}
	files := make(map[meta.Ino]meta.Attr, len(nodes))
	for ino, n := range nodes {
		files[ino] = n.attr
	}
	if err := checkSlices(ctx, e, files, orphans); err != nil {
		problems = append(problems, err)
	}
	got, err := e.Usage(ctx)
	if err != nil {
		return fmt.Errorf("Usage: %w", err)
	}
	if got != want {
		bad("Usage is %+v, the tree holds %+v", got, want)
	}
	return errors.Join(problems...)
}

// checkSlices reads every chunk of the regular files in files and of the
// orphans, and checks that each record lies inside its chunk and that no
// slice a file still references is in the dead-slice queue.
func checkSlices(ctx context.Context, e meta.Engine, files map[meta.Ino]meta.Attr, orphans []meta.Ino) error {
	for _, ino := range orphans {
		if a, err := e.GetAttr(ctx, ino); err == nil {
			files[ino] = a
		}
	}
	live := map[uint64]meta.Ino{}
	for ino, a := range files {
		if a.Type != meta.TypeFile {
			continue
		}
		for idx := uint64(0); idx*meta.ChunkSize < a.Length; idx++ {
			list, err := e.Read(ctx, ino, uint32(idx))
			if err != nil {
				return fmt.Errorf("Read chunk %d of inode %d: %w", idx, ino, err)
			}
			for _, s := range list {
				if uint64(s.Pos)+uint64(s.Len) > meta.ChunkSize {
					return fmt.Errorf("inode %d chunk %d: record %+v crosses the chunk's end", ino, idx, s)
				}
				if s.ID != 0 {
					live[s.ID] = ino
				}
			}
		}
	}
	dead, err := e.DeadSlices(ctx, 1<<20)
	if err != nil {
		return fmt.Errorf("DeadSlices: %w", err)
	}
	for _, d := range dead {
		if ino, ok := live[d.ID]; ok {
			return fmt.Errorf("slice %d is in the dead-slice queue but inode %d still references it", d.ID, ino)
		}
		if d.ID == 0 {
			return fmt.Errorf("the dead-slice queue holds slice 0 (a hole)")
		}
	}
	return nil
}
