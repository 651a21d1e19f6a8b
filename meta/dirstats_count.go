package meta

import (
	"context"
	"fmt"
)

// CountDir reads directory dir's entries from e and returns what its
// statistics should be, and its subdirectories. It is the reference the
// statistics are checked and repaired against (fsck, quota check).
func CountDir(ctx context.Context, e Engine, dir Ino) (DirStat, []Ino, error) {
	var stat DirStat
	var subdirs []Ino
	after := ""
	for {
		es, err := e.Readdir(ctx, dir, after, 1000, true)
		if err != nil {
			return DirStat{}, nil, fmt.Errorf("count the entries of directory %d: %w", dir, err)
		}
		if len(es) == 0 {
			return stat, subdirs, nil
		}
		for _, en := range es {
			stat.Inodes++
			if en.Attr != nil {
				stat.Space += int64(SpaceOf(en.Attr))
			}
			if en.Type == TypeDirectory {
				subdirs = append(subdirs, en.Ino)
			}
		}
		after = es[len(es)-1].Name
	}
}

// CountTree counts every directory of the tree under dir (dir included):
// what each one's statistics should be.
func CountTree(ctx context.Context, e Engine, dir Ino) (map[Ino]DirStat, error) {
	out := map[Ino]DirStat{}
	todo := []Ino{dir}
	for len(todo) > 0 {
		d := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if _, seen := out[d]; seen {
			continue
		}
		stat, subdirs, err := CountDir(ctx, e, d)
		if err != nil {
			return nil, err
		}
		out[d] = stat
		todo = append(todo, subdirs...)
	}
	return out, nil
}
