package fsck

import (
	"fmt"

	"cairn/meta"
)

// checkTree compares every inode with the entries that name it: types,
// link counts, a directory's parent, inodes nothing names.
func (s *scan) checkTree() {
	for ino, n := range s.nodes {
		if n.typ == 0 {
			s.add(Problem{Kind: DanglingEntry, Ino: ino, Detail: fmt.Sprintf("%d entries name inode %d, which does not exist", n.entries, ino)})
			continue
		}
		if n.entries > 0 && (n.typeClash || n.entryType != n.typ) {
			s.add(Problem{Kind: WrongType, Ino: ino, Detail: fmt.Sprintf("an entry gives type %d, the inode is of type %d", n.entryType, n.typ)})
		}
		if ino == meta.RootIno {
			s.checkRoot(n)
			continue
		}
		if n.entries == 0 {
			s.add(Problem{Kind: Unreachable, Ino: ino, Detail: fmt.Sprintf("no entry names it (type %d, nlink %d, %d bytes)", n.typ, n.nlink, n.length)})
			continue
		}
		want := n.entries
		if n.typ == meta.TypeDirectory {
			want = 2 + n.subdirs
			switch {
			case n.entries > 1:
				s.add(Problem{Kind: WrongParent, Ino: ino, Detail: fmt.Sprintf("the directory is listed %d times", n.entries)})
			case n.parent != n.inDir:
				s.add(Problem{Kind: WrongParent, Ino: ino, Detail: fmt.Sprintf("its \"..\" is inode %d, the directory listing it is %d", n.parent, n.inDir)})
			}
		}
		if n.nlink != want {
			s.add(Problem{Kind: WrongNlink, Ino: ino, Detail: fmt.Sprintf("nlink is %d, its entries make it %d", n.nlink, want), nlinkDelta: int64(want) - int64(n.nlink)})
		}
	}
}

func (s *scan) checkRoot(n *node) {
	if n.typ != meta.TypeDirectory {
		s.add(Problem{Kind: WrongType, Ino: meta.RootIno, Detail: fmt.Sprintf("the root is of type %d", n.typ)})
		return
	}
	if n.entries > 0 {
		s.add(Problem{Kind: WrongParent, Ino: meta.RootIno, Detail: fmt.Sprintf("the root is listed in directory %d", n.inDir)})
	}
	if n.parent != meta.RootIno {
		s.add(Problem{Kind: WrongParent, Ino: meta.RootIno, Detail: fmt.Sprintf("the root's \"..\" is inode %d", n.parent)})
	}
	if want := 2 + n.subdirs; n.nlink != want {
		s.add(Problem{Kind: WrongNlink, Ino: meta.RootIno, Detail: fmt.Sprintf("nlink is %d, its entries make it %d", n.nlink, want), nlinkDelta: int64(want) - int64(n.nlink)})
	}
}

// checkDead finds records of slices that are also in the dead-slice
// queue: their blocks may be deleted under the file.
func (s *scan) checkDead() {
	for _, r := range s.refs {
		if s.dead.Has(r.id) {
			s.add(Problem{Kind: BadSlice, Ino: r.ino, Detail: fmt.Sprintf("slice %d is in use and in the dead-slice queue", r.id)})
		}
	}
}

// counted is what the volume holds, as the usage counters should say.
func (s *scan) counted() meta.Usage {
	var u meta.Usage
	for _, n := range s.nodes {
		if n.typ == 0 {
			continue
		}
		u.Inodes++
		if n.typ == meta.TypeFile {
			u.Space += (n.length + 4095) &^ 4095
		}
	}
	return u
}

// checkUsage compares the usage counters of the snapshot with what it
// holds.
func (s *scan) checkUsage() {
	stored, counted := s.header.Usage, s.counted()
	if stored == counted {
		return
	}
	s.add(Problem{
		Kind:        WrongUsage,
		Ino:         meta.RootIno,
		Detail:      fmt.Sprintf("the counters say %d bytes and %d inodes, the volume holds %d bytes and %d inodes", stored.Space, stored.Inodes, counted.Space, counted.Inodes),
		spaceDelta:  int64(counted.Space) - int64(stored.Space),
		inodesDelta: int64(counted.Inodes) - int64(stored.Inodes),
	})
}

// checkStray finds chunks of inodes that are neither in the snapshot nor
// held unlinked by a session (orphans), once per inode.
func (s *scan) checkStray(orphans map[meta.Ino]bool) {
	seen := map[meta.Ino]bool{}
	for _, r := range s.refs {
		if n := s.nodes[r.ino]; (n == nil || n.typ == 0) && !orphans[r.ino] && !seen[r.ino] {
			seen[r.ino] = true
			s.add(Problem{Kind: StrayChunk, Ino: r.ino, Detail: fmt.Sprintf("inode %d does not exist, its chunks do", r.ino)})
		}
	}
}

func (s *scan) add(p Problem) { s.problems = append(s.problems, p) }
