package fuse

import (
	"fmt"
	"syscall"
	"time"

	gofuse "github.com/hanwen/go-fuse/v2/fuse"
)

// The requests on open files, directories, extended attributes and locks,
// logged by loggedFS (see accesslog.go).

func handleArg(ino, fh uint64) string { return fmt.Sprintf("%d,fh=%d", ino, fh) }

func (l *loggedFS) Create(cancel <-chan struct{}, in *gofuse.CreateIn, name string, out *gofuse.CreateOut) gofuse.Status {
	if isLogName(in.NodeId, name) {
		return gofuse.Status(syscall.EEXIST)
	}
	if !l.log.Active() {
		return l.FS.Create(cancel, in, name, out)
	}
	start := time.Now()
	st := l.FS.Create(cancel, in, name, out)
	reply := ""
	if st == gofuse.OK {
		reply = fmt.Sprintf("ino=%d fh=%d", out.NodeId, out.Fh)
	}
	l.record(&in.InHeader, "create", start, st, fmt.Sprintf("%s,mode=%#o,flags=%#x", nameArg(in.NodeId, name), in.Mode, in.Flags), reply)
	return st
}

func (l *loggedFS) Open(cancel <-chan struct{}, in *gofuse.OpenIn, out *gofuse.OpenOut) gofuse.Status {
	if in.NodeId == accessLogIno {
		return l.file.open(in, out)
	}
	if !l.log.Active() {
		return l.FS.Open(cancel, in, out)
	}
	start := time.Now()
	st := l.FS.Open(cancel, in, out)
	reply := ""
	if st == gofuse.OK {
		reply = fmt.Sprintf("fh=%d", out.Fh)
	}
	l.record(&in.InHeader, "open", start, st, fmt.Sprintf("%d,flags=%#x", in.NodeId, in.Flags), reply)
	return st
}

func (l *loggedFS) Read(cancel <-chan struct{}, in *gofuse.ReadIn, buf []byte) (gofuse.ReadResult, gofuse.Status) {
	if in.NodeId == accessLogIno {
		return l.file.read(cancel, in, buf)
	}
	if !l.log.Active() {
		return l.FS.Read(cancel, in, buf)
	}
	start := time.Now()
	res, st := l.FS.Read(cancel, in, buf)
	reply := ""
	if st == gofuse.OK && res != nil {
		reply = fmt.Sprintf("bytes=%d", res.Size())
	}
	l.record(&in.InHeader, "read", start, st, fmt.Sprintf("%s,off=%d,size=%d", handleArg(in.NodeId, in.Fh), in.Offset, in.Size), reply)
	return res, st
}

func (l *loggedFS) Write(cancel <-chan struct{}, in *gofuse.WriteIn, data []byte) (uint32, gofuse.Status) {
	if in.NodeId == accessLogIno {
		return 0, gofuse.EBADF
	}
	if !l.log.Active() {
		return l.FS.Write(cancel, in, data)
	}
	start := time.Now()
	n, st := l.FS.Write(cancel, in, data)
	l.record(&in.InHeader, "write", start, st, fmt.Sprintf("%s,off=%d,size=%d", handleArg(in.NodeId, in.Fh), in.Offset, len(data)), fmt.Sprintf("bytes=%d", n))
	return n, st
}

func (l *loggedFS) Flush(cancel <-chan struct{}, in *gofuse.FlushIn) gofuse.Status {
	if in.NodeId == accessLogIno {
		return gofuse.OK
	}
	if !l.log.Active() {
		return l.FS.Flush(cancel, in)
	}
	start := time.Now()
	st := l.FS.Flush(cancel, in)
	l.record(&in.InHeader, "flush", start, st, handleArg(in.NodeId, in.Fh), "")
	return st
}

func (l *loggedFS) Fsync(cancel <-chan struct{}, in *gofuse.FsyncIn) gofuse.Status {
	if in.NodeId == accessLogIno {
		return gofuse.OK
	}
	if !l.log.Active() {
		return l.FS.Fsync(cancel, in)
	}
	start := time.Now()
	st := l.FS.Fsync(cancel, in)
	l.record(&in.InHeader, "fsync", start, st, handleArg(in.NodeId, in.Fh), "")
	return st
}

func (l *loggedFS) Release(cancel <-chan struct{}, in *gofuse.ReleaseIn) {
	if in.NodeId == accessLogIno {
		l.file.release(in)
		return
	}
	if !l.log.Active() {
		l.FS.Release(cancel, in)
		return
	}
	start := time.Now()
	l.FS.Release(cancel, in)
	l.record(&in.InHeader, "release", start, gofuse.OK, handleArg(in.NodeId, in.Fh), "")
}

func (l *loggedFS) Fallocate(cancel <-chan struct{}, in *gofuse.FallocateIn) gofuse.Status {
	if in.NodeId == accessLogIno {
		return gofuse.EBADF
	}
	if !l.log.Active() {
		return l.FS.Fallocate(cancel, in)
	}
	start := time.Now()
	st := l.FS.Fallocate(cancel, in)
	l.record(&in.InHeader, "fallocate", start, st, fmt.Sprintf("%s,mode=%#x,off=%d,size=%d", handleArg(in.NodeId, in.Fh), in.Mode, in.Offset, in.Length), "")
	return st
}

func (l *loggedFS) CopyFileRange(cancel <-chan struct{}, in *gofuse.CopyFileRangeIn) (uint32, gofuse.Status) {
	if in.NodeId == accessLogIno || in.NodeIdOut == accessLogIno {
		return 0, gofuse.EBADF
	}
	if !l.log.Active() {
		return l.FS.CopyFileRange(cancel, in)
	}
	start := time.Now()
	n, st := l.FS.CopyFileRange(cancel, in)
	args := fmt.Sprintf("%s,off=%d,to=%d,fh_out=%d,off_out=%d,size=%d", handleArg(in.NodeId, in.FhIn), in.OffIn, in.NodeIdOut, in.FhOut, in.OffOut, in.Len)
	l.record(&in.InHeader, "copy_file_range", start, st, args, fmt.Sprintf("bytes=%d", n))
	return n, st
}

func (l *loggedFS) OpenDir(cancel <-chan struct{}, in *gofuse.OpenIn, out *gofuse.OpenOut) gofuse.Status {
	if in.NodeId == accessLogIno {
		return gofuse.Status(syscall.ENOTDIR)
	}
	if !l.log.Active() {
		return l.FS.OpenDir(cancel, in, out)
	}
	start := time.Now()
	st := l.FS.OpenDir(cancel, in, out)
	reply := ""
	if st == gofuse.OK {
		reply = fmt.Sprintf("fh=%d", out.Fh)
	}
	l.record(&in.InHeader, "opendir", start, st, inoArg(in.NodeId), reply)
	return st
}

func (l *loggedFS) ReadDir(cancel <-chan struct{}, in *gofuse.ReadIn, out *gofuse.DirEntryList) gofuse.Status {
	if !l.log.Active() {
		return l.FS.ReadDir(cancel, in, out)
	}
	start := time.Now()
	st := l.FS.ReadDir(cancel, in, out)
	l.record(&in.InHeader, "readdir", start, st, fmt.Sprintf("%s,off=%d", handleArg(in.NodeId, in.Fh), in.Offset), "")
	return st
}

func (l *loggedFS) ReadDirPlus(cancel <-chan struct{}, in *gofuse.ReadIn, out *gofuse.DirEntryList) gofuse.Status {
	if !l.log.Active() {
		return l.FS.ReadDirPlus(cancel, in, out)
	}
	start := time.Now()
	st := l.FS.ReadDirPlus(cancel, in, out)
	l.record(&in.InHeader, "readdirplus", start, st, fmt.Sprintf("%s,off=%d", handleArg(in.NodeId, in.Fh), in.Offset), "")
	return st
}

func (l *loggedFS) ReleaseDir(in *gofuse.ReleaseIn) {
	if !l.log.Active() {
		l.FS.ReleaseDir(in)
		return
	}
	start := time.Now()
	l.FS.ReleaseDir(in)
	l.record(&in.InHeader, "releasedir", start, gofuse.OK, handleArg(in.NodeId, in.Fh), "")
}

func (l *loggedFS) GetXAttr(cancel <-chan struct{}, h *gofuse.InHeader, name string, dest []byte) (uint32, gofuse.Status) {
	if h.NodeId == accessLogIno {
		return 0, gofuse.ENOATTR
	}
	if !l.log.Active() {
		return l.FS.GetXAttr(cancel, h, name, dest)
	}
	start := time.Now()
	n, st := l.FS.GetXAttr(cancel, h, name, dest)
	l.record(h, "getxattr", start, st, nameArg(h.NodeId, name), "")
	return n, st
}

func (l *loggedFS) ListXAttr(cancel <-chan struct{}, h *gofuse.InHeader, dest []byte) (uint32, gofuse.Status) {
	if h.NodeId == accessLogIno {
		return 0, gofuse.OK
	}
	if !l.log.Active() {
		return l.FS.ListXAttr(cancel, h, dest)
	}
	start := time.Now()
	n, st := l.FS.ListXAttr(cancel, h, dest)
	l.record(h, "listxattr", start, st, inoArg(h.NodeId), "")
	return n, st
}

func (l *loggedFS) SetXAttr(cancel <-chan struct{}, in *gofuse.SetXAttrIn, name string, data []byte) gofuse.Status {
	if in.NodeId == accessLogIno {
		return gofuse.EPERM
	}
	if !l.log.Active() {
		return l.FS.SetXAttr(cancel, in, name, data)
	}
	start := time.Now()
	st := l.FS.SetXAttr(cancel, in, name, data)
	l.record(&in.InHeader, "setxattr", start, st, fmt.Sprintf("%s,size=%d,flags=%#x", nameArg(in.NodeId, name), len(data), in.Flags), "")
	return st
}

func (l *loggedFS) RemoveXAttr(cancel <-chan struct{}, h *gofuse.InHeader, name string) gofuse.Status {
	if h.NodeId == accessLogIno {
		return gofuse.EPERM
	}
	if !l.log.Active() {
		return l.FS.RemoveXAttr(cancel, h, name)
	}
	start := time.Now()
	st := l.FS.RemoveXAttr(cancel, h, name)
	l.record(h, "removexattr", start, st, nameArg(h.NodeId, name), "")
	return st
}

func lockArg(in *gofuse.LkIn) string {
	return fmt.Sprintf("%s,owner=%#x,type=%d,start=%d,end=%d", handleArg(in.NodeId, in.Fh), in.Owner, in.Lk.Typ, in.Lk.Start, in.Lk.End)
}

func (l *loggedFS) GetLk(cancel <-chan struct{}, in *gofuse.LkIn, out *gofuse.LkOut) gofuse.Status {
	if in.NodeId == accessLogIno {
		return gofuse.Status(syscall.ENOLCK)
	}
	if !l.log.Active() {
		return l.FS.GetLk(cancel, in, out)
	}
	start := time.Now()
	st := l.FS.GetLk(cancel, in, out)
	l.record(&in.InHeader, "getlk", start, st, lockArg(in), "")
	return st
}

func (l *loggedFS) SetLk(cancel <-chan struct{}, in *gofuse.LkIn) gofuse.Status {
	if in.NodeId == accessLogIno {
		return gofuse.Status(syscall.ENOLCK)
	}
	if !l.log.Active() {
		return l.FS.SetLk(cancel, in)
	}
	start := time.Now()
	st := l.FS.SetLk(cancel, in)
	l.record(&in.InHeader, "setlk", start, st, lockArg(in), "")
	return st
}

func (l *loggedFS) SetLkw(cancel <-chan struct{}, in *gofuse.LkIn) gofuse.Status {
	if in.NodeId == accessLogIno {
		return gofuse.Status(syscall.ENOLCK)
	}
	if !l.log.Active() {
		return l.FS.SetLkw(cancel, in)
	}
	start := time.Now()
	st := l.FS.SetLkw(cancel, in)
	l.record(&in.InHeader, "setlkw", start, st, lockArg(in), "")
	return st
}

func (l *loggedFS) FsyncDir(cancel <-chan struct{}, in *gofuse.FsyncIn) gofuse.Status {
	if !l.log.Active() {
		return l.FS.FsyncDir(cancel, in)
	}
	start := time.Now()
	st := l.FS.FsyncDir(cancel, in)
	l.record(&in.InHeader, "fsyncdir", start, st, handleArg(in.NodeId, in.Fh), "")
	return st
}
