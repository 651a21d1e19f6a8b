package fuse

import (
	"time"

	gofuse "github.com/hanwen/go-fuse/v2/fuse"

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

// dirBatch is how many entries one READDIR asks the VFS for; the kernel's
// buffer (4 KiB to 128 KiB) decides how many fit.
const dirBatch = 512

func (fs *FS) ReadDir(cancel <-chan struct{}, in *gofuse.ReadIn, out *gofuse.DirEntryList) gofuse.Status {
	defer fs.observe("readdir", time.Now())
	return fs.readDir(cancel, in, out, false)
}

func (fs *FS) ReadDirPlus(cancel <-chan struct{}, in *gofuse.ReadIn, out *gofuse.DirEntryList) gofuse.Status {
	defer fs.observe("readdirplus", time.Now())
	return fs.readDir(cancel, in, out, true)
}

func (fs *FS) readDir(cancel <-chan struct{}, in *gofuse.ReadIn, out *gofuse.DirEntryList, plus bool) gofuse.Status {
	off := in.Offset
	for {
		es, err := fs.v.ReadDir(ctxOf(cancel), in.Fh, off, dirBatch, plus)
		if err != nil {
			return fs.errno("readdir", err)
		}
		if len(es) == 0 {
			return gofuse.OK
		}
		for _, e := range es {
			off++
			d := gofuse.DirEntry{Name: e.Name, Ino: uint64(e.Ino), Mode: typeBits[e.Type], Off: off}
			if !plus {
				if !out.AddDirEntry(d) {
					return gofuse.OK
				}
				continue
			}
			eo := out.AddDirLookupEntry(d)
			if eo == nil {
				return gofuse.OK
			}
			if e.Name == "." || e.Name == ".." || e.Attr == nil {
				continue // the kernel takes no reference on these
			}
			fs.entryOut(eo, vfs.Entry{Ino: e.Ino, Attr: *e.Attr})
		}
	}
}

func (fs *FS) ReleaseDir(in *gofuse.ReleaseIn) {
	fs.v.ReleaseDir(in.Fh)
}
