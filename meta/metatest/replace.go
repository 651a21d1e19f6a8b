package metatest

import (
	"fmt"
	"slices"

	"cairn/meta"
)

// replaceTests hold meta.InodeReplacer to its contract: an inode made to
// hold exactly the records given, slice references, the dead-slice queue
// and Usage following, and counters only raised.
func replaceTests() []test {
	return []test{
		{"ReplaceInodes/Records", testReplaceInodesRecords},
		{"ReplaceInodes/SharedSlices", testReplaceInodesSharedSlices},
		{"ReplaceInodes/KeptReferences", testReplaceInodesKeptReferences},
		{"ReplaceInodes/LargeDirectory", testReplaceInodesLargeDirectory},
		{"ReplaceInodes/RaiseCounters", testReplaceInodesRaiseCounters},
	}
}

func (x *env) replacer() meta.InodeReplacer {
	x.t.Helper()
	r, ok := meta.Capability[meta.InodeReplacer](x.e)
	if !ok {
		x.t.Skip("this engine has no meta.InodeReplacer")
	}
	return r
}

// replace is a round of one call: ReplaceInodes, then DropReferences of
// what it kept.
func (x *env) replace(r meta.InodeReplacer, states []meta.InodeState, what string) meta.Replaced {
	x.t.Helper()
	done, err := r.ReplaceInodes(x.ctx, states)
	x.must(err, "%s", what)
	x.must(r.DropReferences(x.ctx, done.Kept), "%s: DropReferences", what)
	return done
}

func testReplaceInodesRecords(x *env) {
	r := x.replacer()
	d := x.mkdir(meta.RootIno, "d")
	f := x.create(d, "f")
	old := x.write(f, 0, 0, 4096)
	x.must(x.e.SetXattr(x.ctx, meta.RootCred, f, "user.old", []byte("1"), 0), "SetXattr")
	gone := x.create(d, "gone")
	kept := x.write(gone, 0, 0, 10)
	base := x.usage()

	// f becomes a longer file with a new slice and another xattr; gone is
	// removed, and d names f alone, under a new name.
	fa := x.attr(f)
	fa.Length = meta.ChunkSize + 100
	fresh := meta.Slice{ID: x.newSliceID(), Size: 100, Len: 100}
	da := x.attr(d)
	done := x.replace(r, []meta.InodeState{
		{Ino: f, Records: []meta.DumpRecord{
			{Kind: meta.DumpInode, Ino: f, Attr: fa},
			{Kind: meta.DumpChunk, Ino: f, Index: 1, Slices: []meta.Slice{fresh}},
			{Kind: meta.DumpXattr, Ino: f, Name: "user.new", Value: []byte("2")},
		}},
		{Ino: gone},
		{Ino: d, Records: []meta.DumpRecord{
			{Kind: meta.DumpInode, Ino: d, Attr: da},
			{Kind: meta.DumpEntry, Ino: d, Name: "renamed", Child: f, Type: meta.TypeFile},
		}},
	}, "ReplaceInodes")
	moved := map[meta.Ino]bool{}
	for _, ino := range done.Moved {
		moved[ino] = true
	}
	if len(moved) != 2 || !moved[f] || !moved[gone] {
		x.t.Errorf("ReplaceInodes reported the children %v moved, want %d (renamed) and %d (gone)", done.Moved, f, gone)
	}
	if got := x.attr(f); got != fa {
		x.t.Errorf("attributes after ReplaceInodes = %+v, want %+v", got, fa)
	}
	if got := x.read(f, 0); len(got) != 0 {
		x.t.Errorf("chunk 0 after ReplaceInodes = %v, want none", got)
	}
	if got := x.read(f, 1); !slices.Equal(got, []meta.Slice{fresh}) {
		x.t.Errorf("chunk 1 after ReplaceInodes = %v, want %v", got, []meta.Slice{fresh})
	}
	names, err := x.e.ListXattr(x.ctx, f)
	x.must(err, "ListXattr")
	if !slices.Equal(names, []string{"user.new"}) {
		x.t.Errorf("xattrs after ReplaceInodes = %v, want [user.new]", names)
	}
	if got := x.names(d); !slices.Equal(got, []string{"renamed"}) {
		x.t.Errorf("entries of d after ReplaceInodes = %v, want [renamed]", got)
	}
	_, err = x.e.GetAttr(x.ctx, gone)
	x.want(meta.ErrNotFound, err, "GetAttr of a replaced-away inode")
	dead := x.deadIDs()
	if dead[old.ID] != old.Size || dead[kept.ID] != kept.Size || len(dead) != 2 {
		x.t.Errorf("DeadSlices after ReplaceInodes = %v, want {%d:%d %d:%d}", dead, old.ID, old.Size, kept.ID, kept.Size)
	}
	want := meta.Usage{Space: base.Space - 4096 - 4096 + (meta.ChunkSize + 4096), Inodes: base.Inodes - 1}
	if u := x.usage(); u != want {
		x.t.Errorf("Usage after ReplaceInodes = %+v, want %+v", u, want)
	}
}

// testReplaceInodesSharedSlices: a slice two inodes name (a clone's)
// stays alive while one of them does, goes dead with the last, and
// leaves the queue when an inode names it again.
func testReplaceInodesSharedSlices(x *env) {
	r := x.replacer()
	a := x.create(meta.RootIno, "a")
	b := x.create(meta.RootIno, "b")
	s := meta.Slice{ID: x.newSliceID(), Size: 10, Len: 10}
	state := func(ino meta.Ino, slices ...meta.Slice) meta.InodeState {
		at := x.attr(ino)
		at.Length = 10
		recs := []meta.DumpRecord{{Kind: meta.DumpInode, Ino: ino, Attr: at}}
		if len(slices) > 0 {
			recs = append(recs, meta.DumpRecord{Kind: meta.DumpChunk, Ino: ino, Slices: slices})
		}
		return meta.InodeState{Ino: ino, Records: recs}
	}
	x.replace(r, []meta.InodeState{state(a, s), state(b, s)}, "ReplaceInodes naming a slice twice")
	x.replace(r, []meta.InodeState{state(a)}, "ReplaceInodes dropping one user")
	if _, ok := x.deadIDs()[s.ID]; ok {
		x.t.Errorf("slice %d dead while inode %d still names it", s.ID, b)
	}
	x.replace(r, []meta.InodeState{state(b)}, "ReplaceInodes dropping the last user")
	if _, ok := x.deadIDs()[s.ID]; !ok {
		x.t.Errorf("slice %d not dead once nothing names it", s.ID)
	}
	x.replace(r, []meta.InodeState{state(a, s)}, "ReplaceInodes naming a dead slice again")
	if _, ok := x.deadIDs()[s.ID]; ok {
		x.t.Errorf("slice %d still dead once inode %d names it again", s.ID, a)
	}
	x.replace(r, []meta.InodeState{state(a), state(b)}, "ReplaceInodes emptying both")
}

func testReplaceInodesRaiseCounters(x *env) {
	r := x.replacer()
	ino := x.newIno()
	id := x.newSliceID()
	x.must(r.RaiseCounters(x.ctx, uint64(ino)+1000, id+1000), "RaiseCounters")
	if got := x.newIno(); got < ino+1000 {
		x.t.Errorf("NextInodes after RaiseCounters(%d) = %d", ino+1000, got)
	}
	if got := x.newSliceID(); got < id+1000 {
		x.t.Errorf("NextSlices after RaiseCounters(%d) = %d", id+1000, got)
	}
	x.must(r.RaiseCounters(x.ctx, 2, 2), "RaiseCounters below the counters")
	if got := x.newIno(); got < ino+1000 {
		x.t.Errorf("RaiseCounters lowered the inode counter: NextInodes = %d", got)
	}
}

// testReplaceInodesKeptReferences: ReplaceInodes keeps the old lists'
// references and hands them back, so that a slice leaving an inode of one
// call for an inode of a later call of the same round never passes
// through the dead-slice queue; DropReferences then settles the counts.
func testReplaceInodesKeptReferences(x *env) {
	r := x.replacer()
	a := x.create(meta.RootIno, "a")
	b := x.create(meta.RootIno, "b")
	s := x.write(a, 0, 0, 10)
	gone := x.write(a, 0, 10, 10)
	state := func(ino meta.Ino, slices ...meta.Slice) meta.InodeState {
		at := x.attr(ino)
		at.Length = 20
		recs := []meta.DumpRecord{{Kind: meta.DumpInode, Ino: ino, Attr: at}}
		if len(slices) > 0 {
			recs = append(recs, meta.DumpRecord{Kind: meta.DumpChunk, Ino: ino, Slices: slices})
		}
		return meta.InodeState{Ino: ino, Records: recs}
	}
	done, err := r.ReplaceInodes(x.ctx, []meta.InodeState{state(a)})
	x.must(err, "ReplaceInodes dropping a's slices")
	kept := done.Kept
	ids := map[uint64]int{}
	for _, k := range kept {
		ids[k.ID]++
	}
	if len(kept) != 2 || ids[s.ID] != 1 || ids[gone.ID] != 1 {
		x.t.Errorf("ReplaceInodes kept %v, want the records of slices %d and %d", kept, s.ID, gone.ID)
	}
	if dead := x.deadIDs(); len(dead) != 0 {
		x.t.Errorf("DeadSlices after ReplaceInodes alone = %v, want none (its references are kept)", dead)
	}
	more, err := r.ReplaceInodes(x.ctx, []meta.InodeState{state(b, s)})
	x.must(err, "ReplaceInodes giving b the slice a had")
	x.must(r.DropReferences(x.ctx, append(kept, more.Kept...)), "DropReferences")
	dead := x.deadIDs()
	if _, ok := dead[s.ID]; ok {
		x.t.Errorf("slice %d dead while inode %d names it", s.ID, b)
	}
	if dead[gone.ID] != gone.Size || len(dead) != 1 {
		x.t.Errorf("DeadSlices after DropReferences = %v, want {%d:%d}", dead, gone.ID, gone.Size)
	}
	x.replace(r, []meta.InodeState{state(b)}, "ReplaceInodes emptying b")
	if _, ok := x.deadIDs()[s.ID]; !ok {
		x.t.Errorf("slice %d not dead once nothing names it", s.ID)
	}
}

// testReplaceInodesLargeDirectory: a directory with more entries than
// one etcd transaction takes is replaced whole, and again with half its
// entries gone and as many new ones.
func testReplaceInodesLargeDirectory(x *env) {
	r := x.replacer()
	d := x.mkdir(meta.RootIno, "d")
	a := x.attr(d)
	state := func(from, to int) meta.InodeState {
		recs := []meta.DumpRecord{{Kind: meta.DumpInode, Ino: d, Attr: a}}
		for i := from; i < to; i++ {
			recs = append(recs, meta.DumpRecord{Kind: meta.DumpEntry, Ino: d, Name: fmt.Sprintf("e%04d", i), Child: meta.RootIno, Type: meta.TypeDirectory})
		}
		return meta.InodeState{Ino: d, Records: recs}
	}
	for _, span := range [][2]int{{0, 300}, {150, 450}, {0, 0}} {
		x.replace(r, []meta.InodeState{state(span[0], span[1])}, "ReplaceInodes of a large directory")
		var want []string
		for i := span[0]; i < span[1]; i++ {
			want = append(want, fmt.Sprintf("e%04d", i))
		}
		if got := x.names(d); !slices.Equal(got, want) {
			x.t.Errorf("entries after ReplaceInodes with e%04d..e%04d: %d, from %q, want %d", span[0], span[1]-1, len(got), got[:min(len(got), 3)], len(want))
		}
	}
}
