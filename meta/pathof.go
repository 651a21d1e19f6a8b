package meta

import (
	"context"
	"fmt"
	"path"
)

// PathOf finds the path from the root of directory ino, by its parents
// and a scan of each parent's entries: for reports that name a few
// directories (quota list), not for hot paths.
func PathOf(ctx context.Context, e Engine, ino Ino) (string, error) {
	var names []string
	for d, steps := ino, 0; d != RootIno; steps++ {
		a, err := e.GetAttr(ctx, d)
		if err != nil {
			return "", err
		}
		if !a.IsDir() || a.Parent == 0 || steps > 4096 {
			return "", fmt.Errorf("inode %d has no path from the root: %w", ino, ErrNotFound)
		}
		name, err := nameIn(ctx, e, a.Parent, d)
		if err != nil {
			return "", err
		}
		names = append(names, name)
		d = a.Parent
	}
	p := "/"
	for i := len(names) - 1; i >= 0; i-- {
		p = path.Join(p, names[i])
	}
	return p, nil
}

// nameIn is the name of inode ino in directory dir.
func nameIn(ctx context.Context, e Engine, dir, ino Ino) (string, error) {
	after := ""
	for {
		es, err := e.Readdir(ctx, dir, after, 1000, false)
		if err != nil {
			return "", err
		}
		if len(es) == 0 {
			return "", fmt.Errorf("inode %d is not in directory %d: %w", ino, dir, ErrNotFound)
		}
		for _, en := range es {
			if en.Ino == ino {
				return en.Name, nil
			}
		}
		after = es[len(es)-1].Name
	}
}
