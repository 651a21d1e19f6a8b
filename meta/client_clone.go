package meta

import (
	"context"
	"fmt"
	"sync/atomic"
)

// CloneTree copies the tree at src (a file, a symbolic link or a whole
// directory) to parent/name with the engine's Cloner, one Clone per
// inode, depth first: every file shares its slices with the source (see
// Cloner). cloned, when not nil, counts the inodes copied. Inodes the
// copy makes are never copied again, so a tree copied into itself stops
// at its copy. Hard links inside the tree become separate copies. An
// engine without a Cloner is ErrNotSupported. A copy that a quota above
// parent cannot take is refused with ErrQuota before anything is copied.
// A failure midway leaves the part copied so far in place.
func (c *Client) CloneTree(ctx context.Context, cred Cred, src, parent Ino, name string, preserve bool, cloned *atomic.Int64) (Ino, error) {
	cloner, ok := clientCapability[Cloner](c)
	if !ok {
		return 0, fmt.Errorf("this metadata engine cannot clone: %w", ErrNotSupported)
	}
	// The Cloner sits beneath meta.Checked (see Capability): the name
	// gets its checks here.
	if err := CheckName(name); err != nil {
		return 0, err
	}
	if err := refuseTrashCreate(parent, name); err != nil {
		return 0, err
	}
	if err := c.checkCloneQuota(ctx, src, parent); err != nil {
		return 0, err
	}
	w := &treeCloner{c: c, cloner: cloner, cred: cred, preserve: preserve, made: map[Ino]bool{}, cloned: cloned}
	c.attrs.beginChange(parent)
	ino, a, err := w.cloneOne(ctx, src, parent, name)
	if err != nil {
		c.nameUnsure(parent, name) // it may have been made all the same
		c.attrs.endChange(parent, nil)
		return 0, err
	}
	c.attrs.endChange(parent, func(p Attr) Attr { return ParentAfterAdd(p, a) })
	c.invalidateUsage()
	c.entries.put(parent, name, ino, c.entryTTL(&a))
	if a.IsDir() {
		if err := w.cloneChildren(ctx, src, ino); err != nil {
			return ino, err
		}
	}
	return ino, nil
}

// checkCloneQuota refuses with ErrQuota, before anything is copied, a
// clone of src into parent that a quota above parent would not allow:
// the copy adds what src holds (a directory's whole tree, each hard link
// counted, as each becomes a copy of its own).
func (c *Client) checkCloneQuota(ctx context.Context, src, parent Ino) error {
	above, _, err := c.quotasAbove(ctx, parent)
	if err != nil || len(above) == 0 {
		return err
	}
	a, err := c.GetAttr(ctx, src)
	if err != nil {
		return err
	}
	u := entryOf(&a)
	if a.IsDir() {
		tree, err := c.treeUsage(ctx, src)
		if err != nil {
			return err
		}
		u = u.Add(tree)
	}
	return c.checkQuota(ctx, parent, u)
}

// treeCloner is one CloneTree's walk.
type treeCloner struct {
	c        *Client
	cloner   Cloner
	cred     Cred
	preserve bool
	made     map[Ino]bool
	cloned   *atomic.Int64
}

func (w *treeCloner) cloneOne(ctx context.Context, src, parent Ino, name string) (Ino, Attr, error) {
	ino, err := w.c.newIno(ctx)
	if err != nil {
		return 0, Attr{}, err
	}
	a, err := w.cloner.Clone(ctx, w.cred, src, parent, name, ino, w.preserve)
	// The name is new in parent: the entry cache must not hold it
	// missing (a window of parent's names may have opened meanwhile).
	if err != nil {
		w.c.nameUnsure(parent, name)
		return 0, Attr{}, err
	}
	w.c.nameIs(parent, name, ino, &a)
	w.made[ino] = true
	w.c.count(ctx, parent, entryOf(&a))
	if w.cloned != nil {
		w.cloned.Add(1)
	}
	return ino, a, nil
}

// cloneChildren copies what directory src holds into its copy dst.
func (w *treeCloner) cloneChildren(ctx context.Context, src, dst Ino) error {
	after := ""
	for {
		entries, err := w.c.eng.Readdir(ctx, src, after, 1000, false)
		if err != nil {
			return fmt.Errorf("list directory %d: %w", src, err)
		}
		if len(entries) == 0 {
			return nil
		}
		for _, e := range entries {
			if w.made[e.Ino] {
				continue
			}
			ino, a, err := w.cloneOne(ctx, e.Ino, dst, e.Name)
			if err != nil {
				return err
			}
			if a.IsDir() {
				if err := w.cloneChildren(ctx, e.Ino, ino); err != nil {
					return err
				}
			}
		}
		after = entries[len(entries)-1].Name
	}
}
