package redis

import (
	"context"
	"fmt"

	"cairn/meta"
)

var _ meta.Cloner = (*Engine)(nil)

// Clone copies inode src to a new inode ino named parent/name in one
// script (scripts/clone.lua), see meta.Cloner.
func (e *Engine) Clone(ctx context.Context, cred meta.Cred, src, parent meta.Ino, name string, ino meta.Ino, preserve bool) (meta.Attr, error) {
	flag := 0
	if preserve {
		flag = 1
	}
	r, err := e.call(ctx, "clone", cred, uint64(src), uint64(parent), name, uint64(ino), flag)
	if err != nil {
		return meta.Attr{}, fmt.Errorf("clone inode %d as %q in inode %d: %w", src, name, parent, err)
	}
	return resultAttr(r)
}
