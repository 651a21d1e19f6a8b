package fuse

import (
	"context"
	"errors"
	"time"

	gofuse "github.com/hanwen/go-fuse/v2/fuse"

	"cairn/meta"
	"cairn/vfs"
)

// FS adapts a vfs.VFS to go-fuse's raw protocol: node ids are cairn inode
// numbers (but for the root: see root.go), file handles are the VFS's.
type FS struct {
	gofuse.RawFileSystem // answers ENOSYS for what is not implemented here

	v      *vfs.VFS
	root   meta.Ino // the inode the kernel's node 1 stands for
	cfg    meta.ClientConfig
	groups groupCache
	pages  pageCache
}

var _ gofuse.RawFileSystem = (*FS)(nil)

// NewFS serves v.
func NewFS(v *vfs.VFS) *FS {
	return &FS{RawFileSystem: gofuse.NewDefaultRawFileSystem(), v: v, cfg: v.Client().Config(), root: v.Root()}
}

func (fs *FS) String() string { return "cairn" }

// Init is called with the server before the first request.
func (fs *FS) Init(srv *gofuse.Server) {
	fs.v.SetInvalidator(func(ino meta.Ino) {
		// Attributes only (offset -1): open drops the page cache itself.
		srv.InodeNotify(fs.node(ino), -1, 0)
	})
}

func (fs *FS) observe(op string, start time.Time) { fs.v.Observe(op, time.Since(start)) }

func (fs *FS) entryOut(out *gofuse.EntryOut, e vfs.Entry) {
	out.NodeId = fs.node(e.Ino)
	out.Generation = 1
	ttl := fs.cfg.EntryTimeout
	if e.Attr.IsDir() {
		ttl = fs.cfg.DirEntryTimeout
	}
	out.SetEntryTimeout(ttl)
	out.SetAttrTimeout(fs.cfg.AttrTimeout)
	fillAttr(&out.Attr, e.Ino, &e.Attr)
}

func (fs *FS) attrOut(out *gofuse.AttrOut, ino meta.Ino, a *meta.Attr) {
	out.SetTimeout(fs.cfg.AttrTimeout)
	fillAttr(&out.Attr, ino, a)
}

func ctxOf(cancel <-chan struct{}) context.Context { return context.Background() }

func (fs *FS) Lookup(cancel <-chan struct{}, h *gofuse.InHeader, name string, out *gofuse.EntryOut) gofuse.Status {
	defer fs.observe("lookup", time.Now())
	parent := fs.ino(h.NodeId)
	e, err := fs.v.Lookup(ctxOf(cancel), fs.cred(h), parent, name)
	if errors.Is(err, meta.ErrNotFound) {
		return fs.negativeEntry(parent, name, out)
	}
	if err != nil {
		return fs.errno("lookup", err)
	}
	fs.entryOut(out, e)
	return gofuse.OK
}

// Forget needs no work: the VFS keeps no per-lookup state.
func (fs *FS) Forget(nodeid, nlookup uint64) {}

func (fs *FS) GetAttr(cancel <-chan struct{}, in *gofuse.GetAttrIn, out *gofuse.AttrOut) gofuse.Status {
	defer fs.observe("getattr", time.Now())
	a, err := fs.v.GetAttr(ctxOf(cancel), fs.ino(in.NodeId))
	if err != nil {
		return fs.errno("getattr", err)
	}
	fs.attrOut(out, fs.ino(in.NodeId), &a)
	return gofuse.OK
}

func (fs *FS) SetAttr(cancel <-chan struct{}, in *gofuse.SetAttrIn, out *gofuse.AttrOut) gofuse.Status {
	defer fs.observe("setattr", time.Now())
	var set meta.SetAttr
	var size *uint64
	if in.Valid&gofuse.FATTR_MODE != 0 {
		m := uint16(in.Mode & 07777)
		set.Mode = &m
	}
	if in.Valid&gofuse.FATTR_UID != 0 {
		uid := in.Uid
		set.Uid = &uid
	}
	if in.Valid&gofuse.FATTR_GID != 0 {
		gid := in.Gid
		set.Gid = &gid
	}
	if in.Valid&gofuse.FATTR_SIZE != 0 {
		s := in.Size
		size = &s
		// A truncate by a caller without CAP_FSETID. On a chown the
		// kernel sets the flag for every caller, and the engine's chown
		// rule (meta.ModeAfterChown) already does what it asks.
		set.ClearSetid = in.Valid&gofuse.FATTR_KILL_SUIDGID != 0
	}
	if in.Valid&gofuse.FATTR_ATIME_NOW != 0 {
		set.AtimeNow = true
	} else if in.Valid&gofuse.FATTR_ATIME != 0 {
		t := int64(in.Atime)*1e9 + int64(in.Atimensec)
		set.Atime = &t
	}
	if in.Valid&gofuse.FATTR_MTIME_NOW != 0 {
		set.MtimeNow = true
	} else if in.Valid&gofuse.FATTR_MTIME != 0 {
		t := int64(in.Mtime)*1e9 + int64(in.Mtimensec)
		set.Mtime = &t
	}
	ino := fs.ino(in.NodeId)
	if in.Valid&^(gofuse.FATTR_FH|gofuse.FATTR_LOCKOWNER) == 0 {
		// With CAP_HANDLE_KILLPRIV_V2 the kernel sends a SETATTR that
		// changes nothing where it would have cleared setuid and setgid
		// itself: for chown(-1, -1) by anyone, and before a write,
		// fallocate or copy_file_range by a caller without CAP_FSETID
		// (each of which clears the bits itself too). Only root and the
		// owner may chown, and for the owner's write both rules clear
		// the same bits, so KeepOwner serves both.
		a, err := fs.v.KeepOwner(ctxOf(cancel), fs.cred(&in.InHeader), ino)
		if err != nil {
			return fs.errno("setattr", err)
		}
		fs.attrOut(out, ino, &a)
		return gofuse.OK
	}
	var fh uint64
	if in.Valid&gofuse.FATTR_FH != 0 {
		fh = in.Fh
	}
	a, err := fs.v.SetAttr(ctxOf(cancel), fs.cred(&in.InHeader), ino, set, size, fh)
	if err != nil {
		return fs.errno("setattr", err)
	}
	fs.attrOut(out, ino, &a)
	return gofuse.OK
}

func (fs *FS) Mknod(cancel <-chan struct{}, in *gofuse.MknodIn, name string, out *gofuse.EntryOut) gofuse.Status {
	defer fs.observe("mknod", time.Now())
	typ := fileType(in.Mode)
	if typ == 0 || typ == meta.TypeDirectory || typ == meta.TypeSymlink {
		return fs.errno("mknod", meta.ErrInvalid)
	}
	e, err := fs.v.Mknod(ctxOf(cancel), fs.cred(&in.InHeader), fs.ino(in.NodeId), name, typ, uint16(in.Mode&07777), in.Rdev)
	if err != nil {
		return fs.errno("mknod", err)
	}
	fs.entryOut(out, e)
	return gofuse.OK
}

func (fs *FS) Mkdir(cancel <-chan struct{}, in *gofuse.MkdirIn, name string, out *gofuse.EntryOut) gofuse.Status {
	defer fs.observe("mkdir", time.Now())
	e, err := fs.v.Mknod(ctxOf(cancel), fs.cred(&in.InHeader), fs.ino(in.NodeId), name, meta.TypeDirectory, uint16(in.Mode&07777), 0)
	if err != nil {
		return fs.errno("mkdir", err)
	}
	fs.entryOut(out, e)
	return gofuse.OK
}

func (fs *FS) Unlink(cancel <-chan struct{}, h *gofuse.InHeader, name string) gofuse.Status {
	defer fs.observe("unlink", time.Now())
	return fs.errno("unlink", fs.v.Unlink(ctxOf(cancel), fs.cred(h), fs.ino(h.NodeId), name))
}

func (fs *FS) Rmdir(cancel <-chan struct{}, h *gofuse.InHeader, name string) gofuse.Status {
	defer fs.observe("rmdir", time.Now())
	return fs.errno("rmdir", fs.v.Rmdir(ctxOf(cancel), fs.cred(h), fs.ino(h.NodeId), name))
}

// kernelRenameFlags are the renameat2 flags a rename from the kernel may
// carry. Any other bit is EINVAL: RENAME_WHITEOUT, which cairn does not
// do, and the flags meta keeps for itself (meta.RenameEmptyDir), which no
// application may set.
const kernelRenameFlags = meta.RenameNoReplace | meta.RenameExchange

func (fs *FS) Rename(cancel <-chan struct{}, in *gofuse.RenameIn, oldName, newName string) gofuse.Status {
	defer fs.observe("rename", time.Now())
	if in.Flags&^kernelRenameFlags != 0 {
		return fs.errno("rename", meta.ErrInvalid)
	}
	return fs.errno("rename", fs.v.Rename(ctxOf(cancel), fs.cred(&in.InHeader), fs.ino(in.NodeId), oldName, fs.ino(in.Newdir), newName, in.Flags))
}

func (fs *FS) Link(cancel <-chan struct{}, in *gofuse.LinkIn, name string, out *gofuse.EntryOut) gofuse.Status {
	defer fs.observe("link", time.Now())
	e, err := fs.v.Link(ctxOf(cancel), fs.cred(&in.InHeader), fs.ino(in.Oldnodeid), fs.ino(in.NodeId), name)
	if err != nil {
		return fs.errno("link", err)
	}
	fs.entryOut(out, e)
	return gofuse.OK
}

func (fs *FS) Symlink(cancel <-chan struct{}, h *gofuse.InHeader, target, name string, out *gofuse.EntryOut) gofuse.Status {
	defer fs.observe("symlink", time.Now())
	e, err := fs.v.Symlink(ctxOf(cancel), fs.cred(h), fs.ino(h.NodeId), name, target)
	if err != nil {
		return fs.errno("symlink", err)
	}
	fs.entryOut(out, e)
	return gofuse.OK
}

func (fs *FS) Readlink(cancel <-chan struct{}, h *gofuse.InHeader) ([]byte, gofuse.Status) {
	defer fs.observe("readlink", time.Now())
	t, err := fs.v.Readlink(ctxOf(cancel), fs.ino(h.NodeId))
	if err != nil {
		return nil, fs.errno("readlink", err)
	}
	return []byte(t), gofuse.OK
}

func (fs *FS) Access(cancel <-chan struct{}, in *gofuse.AccessIn) gofuse.Status {
	defer fs.observe("access", time.Now())
	return fs.errno("access", fs.v.Access(ctxOf(cancel), fs.cred(&in.InHeader), fs.ino(in.NodeId), in.Mask&7))
}

func (fs *FS) StatFs(cancel <-chan struct{}, h *gofuse.InHeader, out *gofuse.StatfsOut) gofuse.Status {
	defer fs.observe("statfs", time.Now())
	s, err := fs.v.StatFS(ctxOf(cancel))
	if err != nil {
		return fs.errno("statfs", err)
	}
	const bsize = 4096
	out.Bsize, out.Frsize, out.NameLen = bsize, bsize, meta.MaxName
	out.Blocks = s.TotalSpace / bsize
	used := (s.UsedSpace + bsize - 1) / bsize
	if used > out.Blocks {
		used = out.Blocks
	}
	out.Bfree = out.Blocks - used
	out.Bavail = out.Bfree
	out.Files = s.TotalInodes
	if s.UsedInodes < s.TotalInodes {
		out.Ffree = s.TotalInodes - s.UsedInodes
	}
	return gofuse.OK
}

// Extended attributes.

func (fs *FS) GetXAttr(cancel <-chan struct{}, h *gofuse.InHeader, name string, dest []byte) (uint32, gofuse.Status) {
	defer fs.observe("getxattr", time.Now())
	val, err := fs.v.GetXattr(ctxOf(cancel), fs.ino(h.NodeId), name)
	if err != nil {
		return 0, fs.errno("getxattr", err)
	}
	if len(dest) < len(val) {
		return uint32(len(val)), fs.errno("getxattr", meta.ErrRange)
	}
	return uint32(copy(dest, val)), gofuse.OK
}

func (fs *FS) ListXAttr(cancel <-chan struct{}, h *gofuse.InHeader, dest []byte) (uint32, gofuse.Status) {
	defer fs.observe("listxattr", time.Now())
	names, err := fs.v.ListXattr(ctxOf(cancel), fs.ino(h.NodeId))
	if err != nil {
		return 0, fs.errno("listxattr", err)
	}
	var buf []byte
	for _, n := range names {
		buf = append(buf, n...)
		buf = append(buf, 0)
	}
	if len(dest) < len(buf) {
		return uint32(len(buf)), fs.errno("listxattr", meta.ErrRange)
	}
	return uint32(copy(dest, buf)), gofuse.OK
}

func (fs *FS) SetXAttr(cancel <-chan struct{}, in *gofuse.SetXAttrIn, name string, data []byte) gofuse.Status {
	defer fs.observe("setxattr", time.Now())
	return fs.errno("setxattr", fs.v.SetXattr(ctxOf(cancel), fs.cred(&in.InHeader), fs.ino(in.NodeId), name, data, in.Flags))
}

func (fs *FS) RemoveXAttr(cancel <-chan struct{}, h *gofuse.InHeader, name string) gofuse.Status {
	defer fs.observe("removexattr", time.Now())
	return fs.errno("removexattr", fs.v.RemoveXattr(ctxOf(cancel), fs.cred(h), fs.ino(h.NodeId), name))
}
