package fsck

import (
	"fmt"
	"strings"

	"cairn/meta"
)

// maxDepth bounds the walk up a chain of parents: a chain longer than
// this is a loop.
const maxDepth = 4096

// path names ino by its first entry and those of the directories above
// it, up to the root. An inode with no entry, or below a directory cut off
// from the root, is named by inode number from where the chain breaks.
func (s *scan) path(ino meta.Ino) string {
	var parts []string
	broken := ""
	for depth := 0; ino != meta.RootIno; depth++ {
		n := s.nodes[ino]
		if n == nil || n.entries == 0 || depth == maxDepth {
			broken = fmt.Sprintf("<inode %d, reached from no directory>", ino)
			break
		}
		parts = append(parts, n.name)
		ino = n.inDir
	}
	var b strings.Builder
	b.WriteString(broken)
	for i := len(parts) - 1; i >= 0; i-- {
		b.WriteByte('/')
		b.WriteString(parts[i])
	}
	if b.Len() == 0 {
		return "/"
	}
	return b.String()
}

// scope says which inodes lie under one directory, following first
// entries; what it learns of directories it remembers.
type scope struct {
	s    *scan
	top  meta.Ino
	dirs map[meta.Ino]bool
}

func (s *scan) scope(top meta.Ino) *scope {
	return &scope{s: s, top: top, dirs: map[meta.Ino]bool{}}
}

// has reports whether ino is top or below it.
func (sc *scope) has(ino meta.Ino) bool {
	if sc.top == meta.RootIno {
		return true
	}
	var walked []meta.Ino
	in := false
	for depth := 0; ; depth++ {
		if ino == sc.top {
			in = true
			break
		}
		if known, ok := sc.dirs[ino]; ok {
			in = known
			break
		}
		n := sc.s.nodes[ino]
		if ino == meta.RootIno || n == nil || n.entries == 0 || depth == maxDepth {
			break
		}
		if n.typ == meta.TypeDirectory {
			walked = append(walked, ino)
		}
		ino = n.inDir
	}
	for _, d := range walked {
		sc.dirs[d] = in
	}
	return in
}
