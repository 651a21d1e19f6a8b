package fsck

import (
	"fmt"
	"sync/atomic"

	"cairn/meta"
)

// node is what fsck holds of one inode: about 100 bytes with the map's
// share, plus the first name it is listed under.
type node struct {
	typ    meta.FileType // 0 until the inode's own record is seen
	nlink  uint32
	parent meta.Ino // a directory's Attr.Parent
	length uint64

	entries   uint32        // entries naming it
	subdirs   uint32        // entries of directories in it
	entryType meta.FileType // the type its first entry gives
	typeClash bool          // its entries disagree on its type
	inDir     meta.Ino      // the directory of its first entry
	name      string        // the name of its first entry
}

// sliceRef is one slice record of a file: 24 bytes per record.
type sliceRef struct {
	id   uint64
	size uint32
	ino  meta.Ino
}

// scan builds the model of a volume from its dump (a meta.DumpWriter).
type scan struct {
	header   meta.DumpHeader
	nodes    map[meta.Ino]*node
	refs     []sliceRef
	dead     meta.IDSet // the dead-slice queue
	problems []Problem
	records  *atomic.Uint64
}

func newScan(records *atomic.Uint64) *scan {
	return &scan{nodes: map[meta.Ino]*node{}, records: records}
}

func (s *scan) node(ino meta.Ino) *node {
	n := s.nodes[ino]
	if n == nil {
		n = &node{}
		s.nodes[ino] = n
	}
	return n
}

// Header implements meta.DumpWriter.
func (s *scan) Header(h meta.DumpHeader) error {
	s.header = h
	s.dead = meta.NewIDSet(h.NextSlice)
	return nil
}

// Record implements meta.DumpWriter.
func (s *scan) Record(rec *meta.DumpRecord) error {
	s.records.Add(1)
	switch rec.Kind {
	case meta.DumpInode:
		n := s.node(rec.Ino)
		n.typ, n.nlink, n.parent, n.length = rec.Attr.Type, rec.Attr.Nlink, rec.Attr.Parent, rec.Attr.Length
	case meta.DumpEntry:
		child := s.node(rec.Child)
		child.entries++
		if child.entries == 1 {
			child.entryType, child.inDir, child.name = rec.Type, rec.Ino, rec.Name
		} else if rec.Type != child.entryType {
			child.typeClash = true
		}
		if rec.Type == meta.TypeDirectory {
			s.node(rec.Ino).subdirs++
		}
	case meta.DumpChunk:
		s.chunk(rec.Ino, rec.Index, rec.Slices)
	case meta.DumpDeadSlice:
		s.dead.Add(rec.Slice.ID)
	}
	return nil
}

// chunk checks the records of chunk idx of ino and keeps them for the
// object check.
func (s *scan) chunk(ino meta.Ino, idx uint32, slices []meta.Slice) {
	for _, sl := range slices {
		var bad string
		switch {
		case uint64(sl.Pos)+uint64(sl.Len) > meta.ChunkSize:
			bad = fmt.Sprintf("chunk %d: record at %d of %d bytes ends past the chunk", idx, sl.Pos, sl.Len)
		case sl.ID == 0:
			continue // a hole
		case uint64(sl.Off)+uint64(sl.Len) > uint64(sl.Size):
			bad = fmt.Sprintf("chunk %d: record takes %d bytes at %d of slice %d, which holds %d", idx, sl.Len, sl.Off, sl.ID, sl.Size)
		case sl.ID >= s.header.NextSlice:
			bad = fmt.Sprintf("chunk %d: slice %d was never handed out (the counter is at %d)", idx, sl.ID, s.header.NextSlice)
		}
		if bad != "" {
			s.problems = append(s.problems, Problem{Kind: BadSlice, Ino: ino, Detail: bad})
			continue
		}
		s.refs = append(s.refs, sliceRef{id: sl.ID, size: sl.Size, ino: ino})
	}
}
