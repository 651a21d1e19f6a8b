package meta

import (
	"context"
	"errors"
	"fmt"
)

// TrashRestorer puts entries of the trash back where they were deleted
// from, as root. An entry whose directory is itself in the trash (removed
// by an rmdir or inside a tree moved there) brings that directory back
// first, and so on up, which is how missing parents are recreated. It
// never replaces an existing name: such an entry is skipped and stays in
// the trash. Not safe for concurrent use.
type TrashRestorer struct {
	c *Client
	// Restored is called for every entry put back, with the directory and
	// name it went to; Skipped for every entry left in the trash and why.
	Restored func(entry string, parent Ino, name string)
	Skipped  func(entry string, reason string)

	index map[Ino]trashPlace // the trash's top-level entries by inode
}

// trashPlace is where a trashed inode's entry is.
type trashPlace struct {
	folder Ino
	entry  string
}

// NewTrashRestorer returns a restorer working through c.
func (c *Client) NewTrashRestorer() *TrashRestorer {
	return &TrashRestorer{c: c, Restored: func(string, Ino, string) {}, Skipped: func(string, string) {}}
}

// ErrNotInTrash means a path given to restore is no entry of the trash.
var ErrNotInTrash = errors.New("not an entry of the trash (give .trash/HOUR/ENTRY or .trash/HOUR)")

// RestoreFolder restores every entry of the hour folder folder.
func (r *TrashRestorer) RestoreFolder(ctx context.Context, folder Ino) error {
	if !IsTrashIno(folder) || folder == TrashIno {
		return ErrNotInTrash
	}
	after := ""
	for {
		es, err := r.c.eng.Readdir(ctx, folder, after, 1000, false)
		if err != nil {
			return fmt.Errorf("list the trash folder: %w", err)
		}
		if len(es) == 0 {
			return nil
		}
		after = es[len(es)-1].Name
		for _, e := range es {
			if err := r.Restore(ctx, folder, e.Name); err != nil && !errors.Is(err, ErrNotFound) {
				return err
			}
		}
	}
}

// Restore puts the entry named entry of hour folder folder back. ErrNotFound
// when it is no longer there (restored already, or purged).
func (r *TrashRestorer) Restore(ctx context.Context, folder Ino, entry string) error {
	parent, _, name, ok := ParseTrashEntry(entry)
	if !IsTrashIno(folder) || folder == TrashIno || !ok {
		return fmt.Errorf("%s: %w", entry, ErrNotInTrash)
	}
	if _, _, err := r.c.eng.Lookup(ctx, folder, entry); err != nil {
		return fmt.Errorf("%s: %w", entry, err)
	}
	dir, reason, err := r.bringBack(ctx, parent, 0)
	if err != nil {
		return fmt.Errorf("restore %s: %w", entry, err)
	}
	if reason != "" {
		r.Skipped(entry, reason)
		return nil
	}
	_, _, _, err = r.c.rename(ctx, RootCred, folder, entry, dir, name, RenameNoReplace)
	switch {
	case errors.Is(err, ErrExists):
		r.Skipped(entry, fmt.Sprintf("%q exists in directory %d", name, dir))
		return nil
	case err != nil:
		return fmt.Errorf("restore %s: %w", entry, err)
	}
	r.Restored(entry, dir, name)
	return nil
}

// bringBack makes sure directory dir is in the tree again, restoring it
// (and its own parents) from the trash when it is there. reason says why
// it cannot be.
func (r *TrashRestorer) bringBack(ctx context.Context, dir Ino, depth int) (Ino, string, error) {
	if depth > 4096 {
		return 0, "", fmt.Errorf("directory %d: trash chain too deep: %w", dir, ErrIO)
	}
	a, err := r.c.eng.GetAttr(ctx, dir)
	if errors.Is(err, ErrNotFound) {
		return 0, fmt.Sprintf("its directory (inode %d) no longer exists", dir), nil
	}
	if err != nil {
		return 0, "", err
	}
	if !a.IsDir() {
		return 0, fmt.Sprintf("inode %d, where it was, is no directory", dir), nil
	}
	r.c.attrs.drop(dir)
	in, err := r.c.InTrash(ctx, dir)
	if err != nil || !in {
		return dir, "", err
	}
	// dir is in the trash: restore the top-level trash entry that holds it.
	top := dir
	for {
		if place, ok, err := r.find(ctx, top); err != nil {
			return 0, "", err
		} else if ok {
			if err := r.Restore(ctx, place.folder, place.entry); err != nil && !errors.Is(err, ErrNotFound) {
				return 0, "", err
			}
			break
		}
		ta, err := r.c.eng.GetAttr(ctx, top)
		if err != nil || IsTrashIno(ta.Parent) || ta.Parent == 0 || ta.Parent == RootIno {
			return 0, fmt.Sprintf("its directory (inode %d) is in the trash under no name restore knows", dir), err
		}
		top = ta.Parent
	}
	r.c.attrs.drop(dir, top)
	if in, err := r.c.InTrash(ctx, dir); err != nil || in {
		return 0, fmt.Sprintf("its directory (inode %d) stays in the trash", dir), err
	}
	return r.bringBack(ctx, dir, depth+1)
}

// find looks ino up among the trash's top-level entries, reading the
// trash once per restorer.
func (r *TrashRestorer) find(ctx context.Context, ino Ino) (trashPlace, bool, error) {
	if r.index == nil {
		r.index = make(map[Ino]trashPlace)
		folders, err := readAll(ctx, r.c.eng, TrashIno, 0, false)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return trashPlace{}, false, err
		}
		for _, f := range folders {
			es, err := readAll(ctx, r.c.eng, f.Ino, 0, false)
			if err != nil {
				return trashPlace{}, false, err
			}
			for _, e := range es {
				if _, i, _, ok := ParseTrashEntry(e.Name); ok && i == e.Ino {
					r.index[i] = trashPlace{folder: f.Ino, entry: e.Name}
				}
			}
		}
	}
	p, ok := r.index[ino]
	return p, ok, nil
}
