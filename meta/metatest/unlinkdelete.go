package metatest

import (
	"cairn/meta"
)

// unlinkDeleteTests hold meta.UnlinkDelete to Unlink's contract on every
// engine, and to ReleaseOrphan's result when it deletes. An engine
// without the capability passes them as a plain Unlink (deleted false).
func unlinkDeleteTests() []test {
	return []test{
		{"UnlinkDelete/LastLink", testUnlinkDeleteLastLink},
		{"UnlinkDelete/ManyChunks", testUnlinkDeleteManyChunks},
		{"UnlinkDelete/Symlink", testUnlinkDeleteSymlink},
		{"UnlinkDelete/OtherLinks", testUnlinkDeleteOtherLinks},
		{"UnlinkDelete/OtherInode", testUnlinkDeleteOtherInode},
		{"UnlinkDelete/Refused", testUnlinkDeleteRefused},
	}
}

// unlinkDelete calls meta.UnlinkDelete through the suite's engine; an
// inode left an orphan is counted as one, as after Unlink.
func (x *env) unlinkDelete(parent meta.Ino, name string, expect meta.Ino) (meta.Ino, meta.Attr, bool) {
	x.t.Helper()
	ino, a, deleted, err := meta.UnlinkDelete(x.ctx, x.e, meta.RootCred, parent, name, x.sid, expect)
	x.must(err, "UnlinkDelete %q", name)
	if a.Nlink == 0 && !deleted {
		x.orphans[ino] = true
	}
	return ino, a, deleted
}

func testUnlinkDeleteLastLink(x *env) {
	d := x.mkdir(meta.RootIno, "d")
	f := x.create(d, "f")
	s1 := x.write(f, 0, 0, 4096)
	s2 := x.write(f, 1, 0, 100)
	x.must(x.e.SetXattr(x.ctx, meta.RootCred, f, "user.k", []byte("v"), 0), "SetXattr")
	keep := x.create(d, "keep")
	s3 := x.write(keep, 0, 0, 10)
	base := x.usage()
	before := x.attr(d)
	ino, a, deleted := x.unlinkDelete(d, "f", f)
	if ino != f || a.Nlink != 0 {
		x.t.Errorf("UnlinkDelete of the last link returned inode %d nlink %d, want %d and 0", ino, a.Nlink, f)
	}
	x.gone(d, "f")
	x.derived(d, "ParentAfterUnlink after UnlinkDelete", meta.ParentAfterUnlink(before, a))
	if !deleted {
		x.release(f) // the engine left an orphan: the caller releases it
	}
	_, err := x.e.GetAttr(x.ctx, f)
	x.want(meta.ErrNotFound, err, "GetAttr after UnlinkDelete of the last link")
	want := meta.Usage{Space: base.Space - (meta.ChunkSize + 4096), Inodes: base.Inodes - 1}
	if u := x.usage(); u != want {
		x.t.Errorf("Usage after UnlinkDelete (deleted %v) = %+v, want %+v", deleted, u, want)
	}
	dead := x.deadIDs()
	if dead[s1.ID] != s1.Size || dead[s2.ID] != s2.Size || len(dead) != 2 {
		x.t.Errorf("DeadSlices after UnlinkDelete (deleted %v) = %v, want {%d:%d %d:%d}", deleted, dead, s1.ID, s1.Size, s2.ID, s2.Size)
	}
	if _, ok := dead[s3.ID]; ok {
		x.t.Errorf("a linked file's slice %d is in DeadSlices", s3.ID)
	}
	// Releasing what is gone is a no-op, as for any inode that is not an
	// orphan of the session.
	x.must(x.e.ReleaseOrphan(x.ctx, x.sid, f), "ReleaseOrphan after UnlinkDelete")
}

// testUnlinkDeleteManyChunks: a file too large for one transaction on
// some stores may be left an orphan; deleted or released, all of it goes.
func testUnlinkDeleteManyChunks(x *env) {
	f := x.create(meta.RootIno, "f")
	const chunks = 60
	for i := uint32(0); i < chunks; i++ {
		x.write(f, i, 0, 10)
	}
	base := x.usage()
	_, _, deleted := x.unlinkDelete(meta.RootIno, "f", f)
	if !deleted {
		x.release(f)
	}
	_, err := x.e.GetAttr(x.ctx, f)
	x.want(meta.ErrNotFound, err, "GetAttr after UnlinkDelete (deleted %v) of a file of %d chunks", deleted, chunks)
	want := meta.Usage{Space: base.Space - spaceOfChunks(chunks), Inodes: base.Inodes - 1}
	if u := x.usage(); u != want {
		x.t.Errorf("Usage after UnlinkDelete (deleted %v) of a file of %d chunks = %+v, want %+v", deleted, chunks, u, want)
	}
	if dead := x.deadIDs(); len(dead) != chunks {
		x.t.Errorf("DeadSlices after UnlinkDelete (deleted %v) of a file of %d chunks: %d slices", deleted, chunks, len(dead))
	}
}

// spaceOfChunks is the space Usage counts for a file of n chunks whose
// last one holds 10 bytes.
func spaceOfChunks(n uint32) uint64 {
	return uint64(n-1)*meta.ChunkSize + 4096
}

func testUnlinkDeleteOtherLinks(x *env) {
	f := x.create(meta.RootIno, "f")
	x.write(f, 0, 0, 100)
	_, err := x.e.Link(x.ctx, meta.RootCred, f, meta.RootIno, "g")
	x.must(err, "Link")
	base := x.usage()
	ino, a, deleted := x.unlinkDelete(meta.RootIno, "f", f)
	if ino != f || a.Nlink != 1 || deleted {
		x.t.Errorf("UnlinkDelete of one of two links returned inode %d nlink %d deleted %v, want %d, 1, false", ino, a.Nlink, deleted, f)
	}
	if got := x.attr(f); got.Nlink != 1 || got.Length != 100 {
		x.t.Errorf("the other link's inode after UnlinkDelete: %+v", got)
	}
	if u := x.usage(); u != base {
		x.t.Errorf("Usage after UnlinkDelete of one of two links = %+v, was %+v", u, base)
	}
}

// testUnlinkDeleteOtherInode: when the name no longer names the inode
// the caller knew (another client replaced it), the one it names is not
// deleted but left an orphan, as by Unlink: somebody may hold it open.
func testUnlinkDeleteOtherInode(x *env) {
	old := x.create(meta.RootIno, "f")
	x.unlink(meta.RootIno, "f")
	x.release(old)
	f := x.create(meta.RootIno, "f")
	x.write(f, 0, 0, 100)
	base := x.usage()
	ino, a, deleted := x.unlinkDelete(meta.RootIno, "f", old)
	if ino != f || a.Nlink != 0 || deleted {
		x.t.Errorf("UnlinkDelete expecting another inode returned inode %d nlink %d deleted %v, want %d, 0, false", ino, a.Nlink, deleted, f)
	}
	if got, err := x.e.GetAttr(x.ctx, f); x.want(nil, err, "GetAttr of the orphan") && got.Length != 100 {
		x.t.Errorf("the orphan's attributes %+v, want length 100", got)
	}
	if u := x.usage(); u != base {
		x.t.Errorf("Usage with the orphan = %+v, was %+v", u, base)
	}
	x.release(f)
}

func testUnlinkDeleteRefused(x *env) {
	d := x.mkdir(meta.RootIno, "d")
	_, _, _, err := meta.UnlinkDelete(x.ctx, x.e, meta.RootCred, meta.RootIno, "d", x.sid, d)
	x.want(meta.ErrIsDir, err, "UnlinkDelete of a directory")
	_, _, _, err = meta.UnlinkDelete(x.ctx, x.e, meta.RootCred, meta.RootIno, "missing", x.sid, d)
	x.want(meta.ErrNotFound, err, "UnlinkDelete of a missing name")
	f := x.create(d, "f")
	_, err = x.e.SetAttr(x.ctx, meta.RootCred, d, meta.SetAttr{Mode: u16(0755)})
	x.must(err, "chmod")
	_, _, _, err = meta.UnlinkDelete(x.ctx, x.e, alice, d, "f", x.sid, f)
	x.want(meta.ErrAccess, err, "UnlinkDelete without write permission on the directory")
	if got := x.attr(f); got.Nlink != 1 {
		x.t.Errorf("a refused UnlinkDelete changed the file: %+v", got)
	}
}

// testUnlinkDeleteSymlink: the last link of a symlink goes with its
// target, its xattrs and its count in Usage.
func testUnlinkDeleteSymlink(x *env) {
	l := x.symlink(meta.RootIno, "l", "some/target")
	x.must(x.e.SetXattr(x.ctx, meta.RootCred, l, "user.k", []byte("v"), 0), "SetXattr")
	base := x.usage()
	ino, a, deleted := x.unlinkDelete(meta.RootIno, "l", l)
	if ino != l || a.Nlink != 0 {
		x.t.Errorf("UnlinkDelete of a symlink returned inode %d nlink %d, want %d and 0", ino, a.Nlink, l)
	}
	x.gone(meta.RootIno, "l")
	if !deleted {
		x.release(l)
	}
	_, err := x.e.GetAttr(x.ctx, l)
	x.want(meta.ErrNotFound, err, "GetAttr after UnlinkDelete (deleted %v) of a symlink", deleted)
	_, err = x.e.Readlink(x.ctx, l)
	x.want(meta.ErrNotFound, err, "Readlink after UnlinkDelete (deleted %v) of a symlink", deleted)
	_, err = x.e.GetXattr(x.ctx, l, "user.k")
	if err == nil {
		x.t.Errorf("GetXattr after UnlinkDelete (deleted %v) of a symlink: the xattr is still there", deleted)
	}
	if u, want := x.usage(), (meta.Usage{Space: base.Space, Inodes: base.Inodes - 1}); u != want {
		x.t.Errorf("Usage after UnlinkDelete (deleted %v) of a symlink = %+v, want %+v", deleted, u, want)
	}
}
