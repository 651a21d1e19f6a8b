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

// TreeCount is a full count of a directory tree: what every directory's
// statistics should be, and the directories each one holds.
type TreeCount struct {
	Root    Ino
	Stats   map[Ino]DirStat // every directory of the tree, Root included
	subdirs map[Ino][]Ino
}

// CountTree counts every directory of the tree under dir (dir included),
// one Readdir of each.
func CountTree(ctx context.Context, e Engine, dir Ino) (*TreeCount, error) {
	t := &TreeCount{Root: dir, Stats: map[Ino]DirStat{}, subdirs: map[Ino][]Ino{}}
	todo := []Ino{dir}
	for len(todo) > 0 {
		d := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if _, seen := t.Stats[d]; seen {
			continue
		}
		stat, subdirs, err := CountDir(ctx, e, d)
		if err != nil {
			return nil, err
		}
		t.Stats[d], t.subdirs[d] = stat, subdirs
		todo = append(todo, subdirs...)
	}
	return t, nil
}

// Total is what is under the tree's root (the root itself not included).
func (t *TreeCount) Total() DirStat {
	var sum DirStat
	for _, d := range t.Stats {
		sum = sum.Add(d)
	}
	return sum
}

// Usage is what is under every directory of the tree (the directory
// itself not included), all of them from one pass: the quota usage each
// would have.
func (t *TreeCount) Usage() map[Ino]DirStat {
	usage := make(map[Ino]DirStat, len(t.Stats))
	// Children before parents: a depth-first order, walked backwards.
	order := make([]Ino, 0, len(t.Stats))
	todo := []Ino{t.Root}
	for len(todo) > 0 {
		d := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if _, seen := usage[d]; seen {
			continue
		}
		usage[d] = DirStat{}
		order = append(order, d)
		todo = append(todo, t.subdirs[d]...)
	}
	for i := len(order) - 1; i >= 0; i-- {
		d := order[i]
		sum := t.Stats[d]
		for _, sub := range t.subdirs[d] {
			sum = sum.Add(usage[sub])
		}
		usage[d] = sum
	}
	return usage
}
