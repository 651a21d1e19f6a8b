package redis

import (
	"context"
	"fmt"

	"cairn/meta"
)

var _ meta.BatchRemover = (*Engine)(nil)

// RemoveEntries removes non-directory entries of one directory in one
// script, deleting at once the inodes that lose their last link (see
// meta.BatchRemover); it never leaves orphans.
func (e *Engine) RemoveEntries(ctx context.Context, cred meta.Cred, parent meta.Ino, names []string, sid uint64) (meta.BatchRemoval, error) {
	args := make([]any, 0, 1+len(names))
	args = append(args, uint64(parent))
	for _, name := range names {
		args = append(args, name)
	}
	r, err := e.call(ctx, "removeentries", cred, args...)
	if err != nil {
		return meta.BatchRemoval{}, fmt.Errorf("remove %d entries of inode %d: %w", len(names), parent, err)
	}
	n, err := resultInt(r)
	return meta.BatchRemoval{Removed: int(n)}, err
}
