package vfs

import (
	"context"

	"cairn/meta"
)

// Root is the directory this VFS serves as its root: the volume's root,
// or the directory a mount with --subdir was given (Config.Root). Nothing
// above it is reachable by name: ".." in it is itself, and the virtual
// files (.stats) live in it.
func (v *VFS) Root() meta.Ino {
	if v.cfg.Root == 0 {
		return meta.RootIno
	}
	return v.cfg.Root
}

// lookupUp resolves ".." in parent, or reports false when name is not
// "..". At the root it is the root itself, so that a sub-directory mount
// never names its parent.
func (v *VFS) lookupUp(ctx context.Context, parent meta.Ino, name string) (Entry, bool, error) {
	if name != ".." || parent != v.Root() {
		return Entry{}, false, nil
	}
	a, err := v.GetAttr(ctx, parent)
	return Entry{Ino: parent, Attr: a}, true, err
}
