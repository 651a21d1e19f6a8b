package migrate

import (
	"io"
	"strconv"
	"time"

	"cairn/meta"
)

// generatedVolume is a meta.DumpReader of a volume of exactly inodes
// inodes (at least 3): the root, directories of about 1,000 files each,
// and files of one 4 KiB slice each. Loading it through Restore builds a
// large SRC in seconds, where creating its files one by one would take
// minutes. Inode numbers run from 1 (the root) through the directories
// to the files, so every entry names an inode already handed out.
type generatedVolume struct {
	inodes, directories uint64
	next                meta.Ino          // the inode whose records come next
	pending             []meta.DumpRecord // next's records, from taken on
	taken               int
	now                 int64
}

func newGeneratedVolume(inodes uint64) *generatedVolume {
	directories := max(1, (inodes-1)/1001)
	return &generatedVolume{inodes: inodes, directories: directories, next: meta.RootIno, now: time.Now().UnixNano()}
}

func (g *generatedVolume) Header() meta.DumpHeader {
	return meta.DumpHeader{Format: testFormat, NextInode: g.inodes + 1, NextSlice: g.inodes + 1}
}

// directoryOf is the directory file inode ino is linked in.
func (g *generatedVolume) directoryOf(ino meta.Ino) meta.Ino {
	files := g.inodes - 1 - g.directories
	perDirectory := (files + g.directories - 1) / g.directories
	return meta.Ino(2 + (uint64(ino)-2-g.directories)/perDirectory)
}

// lastFile is the name and parent of the volume's last file.
func (g *generatedVolume) lastFile() (meta.Ino, string) {
	ino := meta.Ino(g.inodes)
	return g.directoryOf(ino), "f" + strconv.FormatUint(uint64(ino), 10)
}

func (g *generatedVolume) Next() (*meta.DumpRecord, error) {
	if g.taken == len(g.pending) {
		if uint64(g.next) > g.inodes {
			return nil, io.EOF
		}
		g.pending, g.taken = g.recordsOf(g.next, g.pending[:0]), 0
		g.next++
	}
	g.taken++
	return &g.pending[g.taken-1], nil
}

// recordsOf appends ino's records: its attributes, its entry in its
// parent and, for a file, its one chunk.
func (g *generatedVolume) recordsOf(ino meta.Ino, out []meta.DumpRecord) []meta.DumpRecord {
	attr := meta.Attr{Atime: g.now, Mtime: g.now, Ctime: g.now}
	number := strconv.FormatUint(uint64(ino), 10)
	switch {
	case ino == meta.RootIno:
		attr.Type, attr.Mode, attr.Nlink, attr.Length, attr.Parent = meta.TypeDirectory, 0755, 2+uint32(g.directories), 4096, meta.RootIno
		return append(out, meta.DumpRecord{Kind: meta.DumpInode, Ino: ino, Attr: attr})
	case uint64(ino) <= 1+g.directories:
		attr.Type, attr.Mode, attr.Nlink, attr.Length, attr.Parent = meta.TypeDirectory, 0755, 2, 4096, meta.RootIno
		return append(out,
			meta.DumpRecord{Kind: meta.DumpInode, Ino: ino, Attr: attr},
			meta.DumpRecord{Kind: meta.DumpEntry, Ino: meta.RootIno, Name: "d" + number, Child: ino, Type: meta.TypeDirectory})
	default:
		attr.Type, attr.Mode, attr.Nlink, attr.Length = meta.TypeFile, 0644, 1, 4096
		return append(out,
			meta.DumpRecord{Kind: meta.DumpInode, Ino: ino, Attr: attr},
			meta.DumpRecord{Kind: meta.DumpEntry, Ino: g.directoryOf(ino), Name: "f" + number, Child: ino, Type: meta.TypeFile},
			meta.DumpRecord{Kind: meta.DumpChunk, Ino: ino, Slices: []meta.Slice{{ID: uint64(ino), Size: 4096, Len: 4096}}})
	}
}
