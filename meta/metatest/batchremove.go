package metatest

import (
	"fmt"
	"slices"

	"cairn/meta"
)

func batchRemoveTests() []test {
	return []test{
		{"BatchRemove/Files", testBatchRemoveFiles},
		{"BatchRemove/Refused", testBatchRemoveRefused},
		{"BatchRemove/Many", testBatchRemoveMany},
	}
}

// batchRemover is the engine's meta.BatchRemover; the subtest is skipped
// on engines without one.
func (x *env) batchRemover() meta.BatchRemover {
	x.t.Helper()
	r, ok := meta.Capability[meta.BatchRemover](x.e)
	if !ok {
		x.t.Skip("the engine has no meta.BatchRemover")
	}
	return r
}

// testBatchRemoveFiles removes small and big files, a symlink, both links
// of one inode and one of another's, and a name that does not exist, in
// one call: the inodes that lost their last link are gone with their
// data, the others keep theirs, and the directory's attributes follow.
func testBatchRemoveFiles(x *env) {
	remover := x.batchRemover()
	d := x.mkdir(meta.RootIno, "d")
	keep := x.create(meta.RootIno, "keep")
	kept := x.write(keep, 0, 0, 100)
	var names []string
	var gone []meta.Ino
	var goneSlices []meta.Slice
	for i := range 5 {
		name := fmt.Sprintf("f%d", i)
		f := x.create(d, name)
		goneSlices = append(goneSlices, x.write(f, 0, 0, 5000))
		names, gone = append(names, name), append(gone, f)
	}
	// Bigger than a kv engine deletes within a transaction: many records
	// in one chunk, and many chunks.
	records := x.create(d, "records")
	for i := range 40 {
		goneSlices = append(goneSlices, x.write(records, 0, uint32(i)*100, 100))
	}
	chunks := x.create(d, "chunks")
	for i := range 20 {
		goneSlices = append(goneSlices, x.write(chunks, uint32(i), 0, 10))
	}
	x.symlink(d, "link", "target")
	both := x.create(d, "both1")
	goneSlices = append(goneSlices, x.write(both, 0, 0, 10))
	_, err := x.e.Link(x.ctx, meta.RootCred, both, d, "both2")
	x.must(err, "Link")
	half := x.create(d, "half1")
	halfSlice := x.write(half, 0, 0, 10)
	_, err = x.e.Link(x.ctx, meta.RootCred, half, meta.RootIno, "half2")
	x.must(err, "Link")
	names = append(names, "records", "chunks", "link", "both1", "both2", "half1", "missing")
	gone = append(gone, records, chunks, x.lookup(d, "link"), both)
	x.mkdir(d, "sub")

	before := x.usage()
	dirBefore := x.attr(d)
	mark := x.mark()
	r, err := remover.RemoveEntries(x.ctx, meta.RootCred, d, names, x.sid)
	if !x.want(nil, err, "RemoveEntries") {
		return
	}
	for _, ino := range r.Orphans {
		x.orphans[ino] = true
		x.release(ino)
	}
	if r.Removed != len(names)-1 {
		x.t.Errorf("RemoveEntries removed %d entries, want %d (one name did not exist)", r.Removed, len(names)-1)
	}
	if left := x.names(d); !slices.Equal(left, []string{"sub"}) {
		x.t.Errorf("directory after RemoveEntries lists %q, want [sub]", left)
	}
	for _, ino := range gone {
		if _, err := x.e.GetAttr(x.ctx, ino); !x.want(meta.ErrNotFound, err, "GetAttr of removed inode %d", ino) {
			break
		}
	}
	if a := x.attr(half); a.Nlink != 1 {
		x.t.Errorf("inode with one of two links removed has nlink %d, want 1", a.Nlink)
	}
	a := x.attr(d)
	if a.Nlink != dirBefore.Nlink || a.Mtime < mark || a.Ctime < mark {
		x.t.Errorf("directory after RemoveEntries: nlink %d mtime %d ctime %d, want nlink %d and times >= %d", a.Nlink, a.Mtime, a.Ctime, dirBefore.Nlink, mark)
	}
	// 5 files of 5000 bytes, one of 4000 and one of 19 chunks and 10 bytes.
	space := uint64(5*8192 + 4096 + 19*meta.ChunkSize + 4096 + 4096)
	if u := x.usage(); u.Inodes != before.Inodes-uint64(len(gone)) || u.Space != before.Space-space {
		x.t.Errorf("Usage after RemoveEntries = %+v, want {%d %d}", u, before.Space-space, before.Inodes-uint64(len(gone)))
	}
	dead := x.deadIDs()
	for _, s := range goneSlices {
		if _, ok := dead[s.ID]; !ok {
			x.t.Errorf("slice %d of a removed file is not in the dead-slice queue", s.ID)
			break
		}
	}
	for _, s := range []meta.Slice{kept, halfSlice} {
		if _, ok := dead[s.ID]; ok {
			x.t.Errorf("slice %d of a file that still has a link is in the dead-slice queue", s.ID)
		}
	}
	// Names that no longer exist are no error.
	r, err = remover.RemoveEntries(x.ctx, meta.RootCred, d, []string{"f0", "f1"}, x.sid)
	if x.want(nil, err, "RemoveEntries of names removed before") && r.Removed != 0 {
		x.t.Errorf("RemoveEntries of names removed before removed %d", r.Removed)
	}
}

// testBatchRemoveRefused: a directory among the names, a caller without
// write permission, and a missing parent fail the whole batch and change
// nothing.
func testBatchRemoveRefused(x *env) {
	remover := x.batchRemover()
	d := x.mkdir(meta.RootIno, "d")
	x.create(d, "a")
	x.mkdir(d, "sub")
	x.create(d, "z")
	before := x.usage()
	_, err := remover.RemoveEntries(x.ctx, meta.RootCred, d, []string{"a", "sub", "z"}, x.sid)
	x.want(meta.ErrIsDir, err, "RemoveEntries with a directory among the names")
	user := meta.Cred{Uid: 1000, Gid: 1000}
	_, err = remover.RemoveEntries(x.ctx, user, d, []string{"a", "z"}, x.sid)
	x.want(meta.ErrAccess, err, "RemoveEntries by a user without write permission on the directory")
	_, err = remover.RemoveEntries(x.ctx, meta.RootCred, x.newIno(), []string{"a"}, x.sid)
	x.want(meta.ErrNotFound, err, "RemoveEntries in a directory that does not exist")
	if left := x.names(d); !slices.Equal(left, []string{"a", "sub", "z"}) {
		x.t.Errorf("directory after refused RemoveEntries lists %q, want [a sub z]", left)
	}
	if u := x.usage(); u != before {
		x.t.Errorf("Usage after refused RemoveEntries = %+v, want %+v", u, before)
	}
}
