package metatest

import "cairn/meta"

func permTests() []test {
	return []test{
		{"Perm/CreateEACCES", testPermCreate},
		{"Perm/SearchNeeded", testPermSearch},
		{"Perm/RemoveEACCES", testPermRemove},
		{"Perm/Group", testPermGroup},
		{"Perm/RootBypasses", testPermRoot},
		{"Perm/RemoveOthersFile", testPermRemoveOthers},
		{"Perm/NewOwner", testPermNewOwner},
		{"Perm/TruncateEACCES", testPermTruncate},
		{"Sticky/Unlink", testStickyUnlink},
		{"Sticky/Rename", testStickyRename},
		{"Sticky/Rmdir", testStickyRmdir},
		{"Setgid/Inherit", testSetgidInherit},
		{"Rename/MoveDirNeedsWrite", testRenameDirNeedsWrite},
	}
}

// mkdirMode makes a directory as root and then gives it mode, uid and gid.
func (x *env) mkdirMode(parent meta.Ino, name string, mode uint16, uid, gid uint32) meta.Ino {
	x.t.Helper()
	d := x.mkdir(parent, name)
	_, err := x.e.SetAttr(x.ctx, meta.RootCred, d, meta.SetAttr{Mode: u16(mode), Uid: u32(uid), Gid: u32(gid)})
	x.must(err, "SetAttr of %q", name)
	return d
}

func testPermCreate(x *env) {
	d := x.mkdirMode(meta.RootIno, "d", 0755, 0, 0)
	f := x.create(meta.RootIno, "f")
	for _, typ := range []meta.FileType{meta.TypeFile, meta.TypeDirectory, meta.TypeFIFO} {
		_, err := x.e.Mknod(x.ctx, nobody, d, "x", x.newIno(), typ, 0644, 0, "")
		x.want(meta.ErrAccess, err, "Mknod type %d by nobody in a root-owned 0755 directory", typ)
	}
	_, err := x.e.Mknod(x.ctx, nobody, d, "x", x.newIno(), meta.TypeSymlink, 0777, 0, "t")
	x.want(meta.ErrAccess, err, "symlink by nobody in a root-owned 0755 directory")
	_, err = x.e.Link(x.ctx, nobody, f, d, "x")
	x.want(meta.ErrAccess, err, "Link by nobody into a root-owned 0755 directory")
	x.gone(d, "x")
}

// Write permission without search permission is not enough.
func testPermSearch(x *env) {
	d := x.mkdirMode(meta.RootIno, "d", 0776, 0, 0)
	_, err := x.e.Mknod(x.ctx, nobody, d, "x", x.newIno(), meta.TypeFile, 0644, 0, "")
	x.want(meta.ErrAccess, err, "Mknod by nobody in a 0776 directory (write, no search)")
}

func testPermRemove(x *env) {
	d := x.mkdirMode(meta.RootIno, "d", 0755, 0, 0)
	other := x.mkdirMode(meta.RootIno, "open", 0777, 0, 0)
	x.create(d, "f")
	x.mkdir(d, "sub")
	_, _, err := x.e.Unlink(x.ctx, nobody, d, "f", x.sid)
	x.want(meta.ErrAccess, err, "Unlink by nobody in a root-owned 0755 directory")
	x.want(meta.ErrAccess, x.e.Rmdir(x.ctx, nobody, d, "sub"), "Rmdir by nobody in a root-owned 0755 directory")
	_, _, _, err = x.e.Rename(x.ctx, nobody, d, "f", d, "g", 0, x.sid)
	x.want(meta.ErrAccess, err, "Rename by nobody within a root-owned 0755 directory")
	_, _, _, err = x.e.Rename(x.ctx, nobody, d, "f", other, "g", 0, x.sid)
	x.want(meta.ErrAccess, err, "Rename by nobody out of a root-owned 0755 directory")
	x.create(other, "h")
	_, _, _, err = x.e.Rename(x.ctx, nobody, other, "h", d, "h", 0, x.sid)
	x.want(meta.ErrAccess, err, "Rename by nobody into a root-owned 0755 directory")
	x.lookup(d, "f")
	x.lookup(d, "sub")
	x.lookup(other, "h")
}

func testPermGroup(x *env) {
	d := x.mkdirMode(meta.RootIno, "d", 0770, 0, alice.Gid)
	_, err := x.e.Mknod(x.ctx, alice, d, "a", x.newIno(), meta.TypeFile, 0644, 0, "")
	x.want(nil, err, "Mknod by a member of the directory's group (0770)")
	_, err = x.e.Mknod(x.ctx, bob, d, "b", x.newIno(), meta.TypeFile, 0644, 0, "")
	x.want(meta.ErrAccess, err, "Mknod by a non-member (0770)")
	bobInGroup := meta.Cred{Uid: bob.Uid, Gid: bob.Gid, Gids: []uint32{bob.Gid, alice.Gid}}
	_, err = x.e.Mknod(x.ctx, bobInGroup, d, "b", x.newIno(), meta.TypeFile, 0644, 0, "")
	x.want(nil, err, "Mknod by a member through a supplementary group (0770)")
	// The owner's bits apply to the owner even when the group's would allow.
	e := x.mkdirMode(meta.RootIno, "e", 0570, alice.Uid, alice.Gid)
	_, err = x.e.Mknod(x.ctx, alice, e, "a", x.newIno(), meta.TypeFile, 0644, 0, "")
	x.want(meta.ErrAccess, err, "Mknod by the owner of a 0570 directory")
}

func testPermRoot(x *env) {
	d := x.mkdirMode(meta.RootIno, "d", 0, alice.Uid, alice.Gid)
	_, err := x.e.Mknod(x.ctx, meta.RootCred, d, "f", x.newIno(), meta.TypeFile, 0644, 0, "")
	x.want(nil, err, "Mknod by root in a 0000 directory")
	ino, a, err := x.e.Unlink(x.ctx, meta.RootCred, d, "f", x.sid)
	if x.want(nil, err, "Unlink by root in a 0000 directory") && a.Nlink == 0 {
		x.orphans[ino] = true
	}
}

// In a writable directory without the sticky bit anyone may remove or
// replace anyone's entries: the file's own mode does not matter.
func testPermRemoveOthers(x *env) {
	d := x.mkdirMode(meta.RootIno, "d", 0777, 0, 0)
	x.create(d, "f")
	x.create(d, "g")
	x.create(d, "h")
	_, err := x.e.SetAttr(x.ctx, meta.RootCred, x.lookup(d, "f"), meta.SetAttr{Mode: u16(0)})
	x.must(err, "chmod")
	ino, a, err := x.e.Unlink(x.ctx, nobody, d, "f", x.sid)
	if x.want(nil, err, "Unlink by nobody of root's 0000 file in a 0777 directory") && a.Nlink == 0 {
		x.orphans[ino] = true
	}
	_, _, replaced, err := x.e.Rename(x.ctx, nobody, d, "g", d, "h", 0, x.sid)
	if x.want(nil, err, "Rename by nobody of root's file over root's file in a 0777 directory") && replaced != 0 {
		x.orphans[replaced] = true
	}
}

func testPermNewOwner(x *env) {
	d := x.mkdirMode(meta.RootIno, "d", 0777, 0, 0)
	ino := x.newIno()
	a, err := x.e.Mknod(x.ctx, alice, d, "f", ino, meta.TypeFile, 0640, 0, "")
	x.must(err, "Mknod by alice")
	if a.Uid != alice.Uid || a.Gid != alice.Gid || a.Mode != 0640 {
		x.t.Errorf("alice's new file is %d:%d mode %o, want %d:%d mode 0640", a.Uid, a.Gid, a.Mode, alice.Uid, alice.Gid)
	}
	a, err = x.e.Mknod(x.ctx, nobody, d, "g", x.newIno(), meta.TypeDirectory, 0700, 0, "")
	x.must(err, "mkdir by nobody")
	if a.Uid != nobody.Uid || a.Gid != nobody.Gid || a.Mode != 0700 {
		x.t.Errorf("nobody's new directory is %d:%d mode %o, want 65534:65534 mode 0700", a.Uid, a.Gid, a.Mode)
	}
}

func testPermTruncate(x *env) {
	f := x.create(meta.RootIno, "f") // 0644 root
	_, err := x.e.Truncate(x.ctx, nobody, f, 100)
	x.want(meta.ErrAccess, err, "Truncate by nobody of a root-owned 0644 file")
	if a := x.attr(f); a.Length != 0 {
		x.t.Errorf("a refused Truncate changed the length to %d", a.Length)
	}
	_, err = x.e.SetAttr(x.ctx, meta.RootCred, f, meta.SetAttr{Mode: u16(0666)})
	x.must(err, "chmod")
	_, err = x.e.Truncate(x.ctx, nobody, f, 100)
	x.want(nil, err, "Truncate by nobody of a 0666 file")
}

// stickyDir is a root-owned 01777 directory holding alice's file "a" and
// alice's directory "ad".
func (x *env) stickyDir() meta.Ino {
	x.t.Helper()
	d := x.mkdirMode(meta.RootIno, "tmp", 01777, 0, 0)
	_, err := x.e.Mknod(x.ctx, alice, d, "a", x.newIno(), meta.TypeFile, 0666, 0, "")
	x.must(err, "Mknod by alice in a sticky directory")
	_, err = x.e.Mknod(x.ctx, alice, d, "ad", x.newIno(), meta.TypeDirectory, 0777, 0, "")
	x.must(err, "mkdir by alice in a sticky directory")
	return d
}

func testStickyUnlink(x *env) {
	d := x.stickyDir()
	_, _, err := x.e.Unlink(x.ctx, bob, d, "a", x.sid)
	x.want(meta.ErrNotPermitted, err, "Unlink by bob of alice's file in a sticky directory")
	x.lookup(d, "a")
	ino, a, err := x.e.Unlink(x.ctx, alice, d, "a", x.sid)
	if x.want(nil, err, "Unlink by alice of her own file in a sticky directory") && a.Nlink == 0 {
		x.orphans[ino] = true
	}
	// The directory's owner may delete anything in it.
	e := x.mkdirMode(meta.RootIno, "bobs", 01777, bob.Uid, bob.Gid)
	_, err = x.e.Mknod(x.ctx, alice, e, "a", x.newIno(), meta.TypeFile, 0600, 0, "")
	x.must(err, "Mknod")
	ino, a, err = x.e.Unlink(x.ctx, bob, e, "a", x.sid)
	if x.want(nil, err, "Unlink by the sticky directory's owner of alice's file") && a.Nlink == 0 {
		x.orphans[ino] = true
	}
	_, err = x.e.Mknod(x.ctx, alice, d, "b", x.newIno(), meta.TypeFile, 0600, 0, "")
	x.must(err, "Mknod")
	ino, a, err = x.e.Unlink(x.ctx, meta.RootCred, d, "b", x.sid)
	if x.want(nil, err, "Unlink by root in a sticky directory") && a.Nlink == 0 {
		x.orphans[ino] = true
	}
}

func testStickyRename(x *env) {
	d := x.stickyDir()
	_, _, _, err := x.e.Rename(x.ctx, bob, d, "a", d, "b", 0, x.sid)
	x.want(meta.ErrNotPermitted, err, "Rename by bob of alice's file in a sticky directory")
	_, err = x.e.Mknod(x.ctx, bob, d, "bobs", x.newIno(), meta.TypeFile, 0644, 0, "")
	x.must(err, "Mknod by bob")
	_, _, _, err = x.e.Rename(x.ctx, bob, d, "bobs", d, "a", 0, x.sid)
	x.want(meta.ErrNotPermitted, err, "Rename by bob over alice's file in a sticky directory")
	_, _, _, err = x.e.Rename(x.ctx, bob, d, "bobs", d, "a", meta.RenameExchange, x.sid)
	x.want(meta.ErrNotPermitted, err, "RenameExchange by bob with alice's file in a sticky directory")
	x.lookup(d, "a")
	x.lookup(d, "bobs")
	_, _, _, err = x.e.Rename(x.ctx, bob, d, "bobs", d, "bobs2", 0, x.sid)
	x.want(nil, err, "Rename by bob of his own file in a sticky directory")
}

func testStickyRmdir(x *env) {
	d := x.stickyDir()
	x.want(meta.ErrNotPermitted, x.e.Rmdir(x.ctx, bob, d, "ad"), "Rmdir by bob of alice's directory in a sticky directory")
	x.lookup(d, "ad")
	x.want(nil, x.e.Rmdir(x.ctx, alice, d, "ad"), "Rmdir by alice of her directory in a sticky directory")
}

func testSetgidInherit(x *env) {
	const group = 500
	d := x.mkdirMode(meta.RootIno, "sg", 02777, 0, group)
	_, a, err := x.newInoMknod(alice, d, "f", meta.TypeFile, 0644)
	if x.want(nil, err, "Mknod in a setgid directory") && (a.Gid != group || a.Uid != alice.Uid || a.Mode != 0644) {
		x.t.Errorf("file in a setgid directory is %d:%d mode %o, want %d:%d mode 0644", a.Uid, a.Gid, a.Mode, alice.Uid, group)
	}
	sub, a, err := x.newInoMknod(alice, d, "sub", meta.TypeDirectory, 0755)
	if x.want(nil, err, "mkdir in a setgid directory") && (a.Gid != group || a.Mode != 02755) {
		x.t.Errorf("directory in a setgid directory has gid %d mode %o, want gid %d mode 02755", a.Gid, a.Mode, group)
	}
	// The inheritance carries down through the new setgid directory.
	if _, a, err := x.newInoMknod(alice, sub, "g", meta.TypeFile, 0600); x.want(nil, err, "Mknod in a setgid subdirectory") && a.Gid != group {
		x.t.Errorf("file two levels into a setgid tree has gid %d, want %d", a.Gid, group)
	}
	// A non-member asking for setgid on a group-executable file loses it.
	_, a, err = x.newInoMknod(alice, d, "x", meta.TypeFile, 02755)
	if x.want(nil, err, "Mknod 02755 by a non-member in a setgid directory") && a.Mode != 0755 {
		x.t.Errorf("setgid file made by a non-member of its group has mode %o, want 0755", a.Mode)
	}
	member := meta.Cred{Uid: alice.Uid, Gid: alice.Gid, Gids: []uint32{group}}
	_, a, err = x.newInoMknod(member, d, "y", meta.TypeFile, 02755)
	if x.want(nil, err, "Mknod 02755 by a member in a setgid directory") && a.Mode != 02755 {
		x.t.Errorf("setgid file made by a member of its group has mode %o, want 02755", a.Mode)
	}
	_, a, err = x.newInoMknod(meta.RootCred, d, "z", meta.TypeFile, 02755)
	if x.want(nil, err, "Mknod 02755 by root in a setgid directory") && a.Mode != 02755 {
		x.t.Errorf("setgid file made by root has mode %o, want 02755", a.Mode)
	}
	// Outside a setgid directory the group is the caller's.
	plain := x.mkdirMode(meta.RootIno, "plain", 0777, 0, group)
	_, a, err = x.newInoMknod(alice, plain, "f", meta.TypeDirectory, 0755)
	if x.want(nil, err, "mkdir in a plain directory") && (a.Gid != alice.Gid || a.Mode != 0755) {
		x.t.Errorf("directory in a plain directory has gid %d mode %o, want %d 0755", a.Gid, a.Mode, alice.Gid)
	}
}

func (x *env) newInoMknod(cred meta.Cred, parent meta.Ino, name string, typ meta.FileType, mode uint16) (meta.Ino, meta.Attr, error) {
	x.t.Helper()
	ino := x.newIno()
	a, err := x.e.Mknod(x.ctx, cred, parent, name, ino, typ, mode, 0, "")
	return ino, a, err
}

// Moving a directory to another parent rewrites its "..": Linux requires
// write permission on the directory itself.
func testRenameDirNeedsWrite(x *env) {
	a := x.mkdirMode(meta.RootIno, "a", 0777, alice.Uid, alice.Gid)
	b := x.mkdirMode(meta.RootIno, "b", 0777, alice.Uid, alice.Gid)
	x.mkdirMode(a, "sub", 0755, 0, 0)
	_, _, _, err := x.e.Rename(x.ctx, alice, a, "sub", b, "sub", 0, x.sid)
	x.want(meta.ErrAccess, err, "Rename by alice of root's 0755 directory to another parent")
	_, _, _, err = x.e.Rename(x.ctx, alice, a, "sub", a, "sub2", 0, x.sid)
	if x.want(nil, err, "Rename by alice of root's 0755 directory within its parent") {
		x.lookup(a, "sub2")
	}
}
