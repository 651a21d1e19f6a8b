package bench

import (
	"context"
	"errors"
	"fmt"

	"cairn/meta"
)

// RemoveTree removes parent/name and everything below it through the
// engine, freeing each file whose last link goes. A missing name is not an
// error.
func RemoveTree(ctx context.Context, v *Volume, parent meta.Ino, name string) error {
	ino, attr, err := v.Engine.Lookup(ctx, parent, name)
	if errors.Is(err, meta.ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("look up %q in directory %d: %w", name, parent, err)
	}
	if !attr.IsDir() {
		return Unlink(ctx, v, parent, name)
	}
	for {
		// Always read from the start: the entries read last time are gone.
		ents, err := v.Engine.Readdir(ctx, ino, "", 1000, false)
		if err != nil {
			return fmt.Errorf("list directory %d: %w", ino, err)
		}
		if len(ents) == 0 {
			break
		}
		for _, e := range ents {
			if err := RemoveTree(ctx, v, ino, e.Name); err != nil {
				return err
			}
		}
	}
	if err := v.Engine.Rmdir(ctx, v.Cred, parent, name); err != nil {
		return fmt.Errorf("remove directory %q in %d: %w", name, parent, err)
	}
	return nil
}

// Unlink removes a non-directory as a client does when nobody holds it
// open: the entry, and the inode itself once its last link is gone.
func Unlink(ctx context.Context, v *Volume, parent meta.Ino, name string) error {
	ino, attr, err := v.Engine.Unlink(ctx, v.Cred, parent, name, v.Session)
	if err != nil {
		return fmt.Errorf("unlink %q in directory %d: %w", name, parent, err)
	}
	if attr.Nlink == 0 {
		if err := v.Engine.ReleaseOrphan(ctx, v.Session, ino); err != nil {
			return fmt.Errorf("free unlinked inode %d: %w", ino, err)
		}
	}
	return nil
}
