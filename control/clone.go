package control

import (
	"errors"
	"fmt"
	"path"
	"sync/atomic"

	"cairn/meta"
	"cairn/vfs"
)

// clone copies Path to the new name Target as the caller (who must be
// able to read the source and write to the target's directory).
func (c *call) clone() (any, error) {
	shown, targetShown := c.shown(), c.req.TargetShown
	if targetShown == "" {
		targetShown = c.req.Target
	}
	if err := c.writable(); err != nil {
		return nil, err
	}
	src, err := c.resolveShown(c.req.Path, shown)
	switch {
	case err != nil:
		return nil, err
	case src.parent == 0:
		return nil, fmt.Errorf("%s is the root of its mount: clone what is in it instead", shown)
	case src.ino == meta.TrashIno:
		return nil, fmt.Errorf("%s is the trash: clone what is in it instead", shown)
	case src.ino == vfs.StatsIno:
		return nil, fmt.Errorf("%s is the mount's statistics file: clone a file of the volume", shown)
	}
	dir, err := c.resolveShown(path.Dir(path.Clean("/"+c.req.Target)), "the directory of "+targetShown)
	if err != nil {
		return nil, err
	}
	name := path.Base(path.Clean("/" + c.req.Target))
	if !dir.attr.IsDir() || name == "/" || name == "." || name == ".." {
		return nil, fmt.Errorf("%s: not a new name in a directory", targetShown)
	}
	if err := meta.Access(&dir.attr, c.cred, meta.MayExec); err != nil {
		return nil, fmt.Errorf("the directory of %s: %w", targetShown, err)
	}
	var cloned atomic.Int64
	c.watch(func() any { return Count{Inodes: cloned.Load()} })
	_, err = c.v.Client().CloneTree(c.ctx, c.cred, src.ino, dir.ino, name, c.req.Preserve, &cloned)
	c.changed(dir.ino, name)
	if errors.Is(err, meta.ErrExists) && cloned.Load() == 0 {
		return nil, fmt.Errorf("%s already exists: clone to a new name", targetShown)
	}
	if err != nil {
		return nil, fmt.Errorf("clone %s to %s: %w", shown, targetShown, err)
	}
	return Count{Inodes: cloned.Load()}, nil
}
