package fuse

import (
	"time"

	gofuse "github.com/hanwen/go-fuse/v2/fuse"

	"cairn/meta"
	"cairn/vfs"
)

const statsIno = vfs.StatsIno

func (fs *FS) OpenDir(cancel <-chan struct{}, in *gofuse.OpenIn, out *gofuse.OpenOut) gofuse.Status {
	defer fs.observe("opendir", time.Now())
	fh, err := fs.v.OpenDir(ctxOf(cancel), fs.cred(&in.InHeader), fs.ino(in.NodeId))
	if err != nil {
		return fs.errno("opendir", err)
	}
	out.Fh = fh
	return gofuse.OK
}

func (fs *FS) ReadDir(cancel <-chan struct{}, in *gofuse.ReadIn, out *gofuse.DirEntryList) gofuse.Status {
	defer fs.observe("readdir", time.Now())
	return fs.readDir(cancel, in, out, false)
}

func (fs *FS) ReadDirPlus(cancel <-chan struct{}, in *gofuse.ReadIn, out *gofuse.DirEntryList) gofuse.Status {
	defer fs.observe("readdirplus", time.Now())
	return fs.readDir(cancel, in, out, true)
}

// readDir fills the kernel's buffer (as large as the caller's getdents
// buffer, up to the mount's max_pages) with the entries from in.Offset on;
// the VFS reads them from the engine as the buffer takes them.
func (fs *FS) readDir(cancel <-chan struct{}, in *gofuse.ReadIn, out *gofuse.DirEntryList, plus bool) gofuse.Status {
	err := fs.v.ReadDir(ctxOf(cancel), in.Fh, in.Offset, plus, func(e *meta.Entry, a *meta.Attr, next uint64) bool {
		d := gofuse.DirEntry{Name: e.Name, Ino: uint64(e.Ino), Mode: typeBits[e.Type], Off: next}
		if !plus {
			return out.AddDirEntry(d)
		}
		eo := out.AddDirLookupEntry(d)
		if eo == nil {
			return false
		}
		if a != nil && e.Name != "." && e.Name != ".." { // the kernel takes no reference on these
			fs.entryOut(eo, vfs.Entry{Ino: e.Ino, Attr: *a})
		}
		return true
	})
	if err != nil {
		return fs.errno("readdir", err)
	}
	return gofuse.OK
}

func (fs *FS) ReleaseDir(in *gofuse.ReleaseIn) {
	fs.v.ReleaseDir(in.Fh)
}
