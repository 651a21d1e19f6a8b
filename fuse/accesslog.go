package fuse

import (
	"fmt"
	"strconv"
	"syscall"
	"time"

	gofuse "github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"

	"cairn/accesslog"
)

// loggedFS wraps the FS: it serves the .accesslog file in the root and,
// while someone reads that file, writes a line for every other request
// with its arguments, result and duration. With nobody reading, a request
// costs one atomic load more.
type loggedFS struct {
	*FS
	log  *accesslog.Stream
	file *accessLogFile
}

var _ gofuse.RawFileSystem = (*loggedFS)(nil)

func newLoggedFS(fs *FS) *loggedFS {
	stream := &accesslog.Stream{}
	return &loggedFS{FS: fs, log: stream, file: newAccessLogFile(stream)}
}

// record writes the line of one request that began at start.
func (l *loggedFS) record(h *gofuse.InHeader, op string, start time.Time, st gofuse.Status, args, reply string) {
	r := accesslog.Record{
		Time: start, Uid: h.Uid, Gid: h.Gid, Pid: h.Pid, Op: op, Args: args,
		Result: resultText(st, reply), Duration: time.Since(start),
	}
	l.log.Write(r.Append(make([]byte, 0, 128)))
}

func resultText(st gofuse.Status, reply string) string {
	if st != gofuse.OK {
		if name := unix.ErrnoName(syscall.Errno(st)); name != "" {
			return name
		}
		return "errno" + strconv.Itoa(int(st))
	}
	if reply == "" {
		return "OK"
	}
	return "OK " + reply
}

func inoArg(ino uint64) string { return strconv.FormatUint(ino, 10) }

func nameArg(ino uint64, name string) string { return fmt.Sprintf("%d,%q", ino, name) }

func entryReply(st gofuse.Status, out *gofuse.EntryOut) string {
	if st != gofuse.OK {
		return ""
	}
	return "ino=" + inoArg(out.NodeId)
}

// isLogName tells whether parent/name is the .accesslog file.
func isLogName(parent uint64, name string) bool {
	return parent == 1 && name == AccessLogName
}

func (l *loggedFS) Lookup(cancel <-chan struct{}, h *gofuse.InHeader, name string, out *gofuse.EntryOut) gofuse.Status {
	if isLogName(h.NodeId, name) {
		return l.file.lookup(out)
	}
	if !l.log.Active() {
		return l.FS.Lookup(cancel, h, name, out)
	}
	start := time.Now()
	st := l.FS.Lookup(cancel, h, name, out)
	logged := st
	if st.Ok() && out.NodeId == 0 {
		logged = gofuse.ENOENT // a negative entry (negative.go)
	}
	l.record(h, "lookup", start, logged, nameArg(h.NodeId, name), entryReply(logged, out))
	return st
}

func (l *loggedFS) GetAttr(cancel <-chan struct{}, in *gofuse.GetAttrIn, out *gofuse.AttrOut) gofuse.Status {
	if in.NodeId == accessLogIno {
		return l.file.getAttr(out)
	}
	if !l.log.Active() {
		return l.FS.GetAttr(cancel, in, out)
	}
	start := time.Now()
	st := l.FS.GetAttr(cancel, in, out)
	l.record(&in.InHeader, "getattr", start, st, inoArg(in.NodeId), "")
	return st
}

func (l *loggedFS) SetAttr(cancel <-chan struct{}, in *gofuse.SetAttrIn, out *gofuse.AttrOut) gofuse.Status {
	if in.NodeId == accessLogIno {
		return gofuse.EPERM
	}
	if !l.log.Active() {
		return l.FS.SetAttr(cancel, in, out)
	}
	start := time.Now()
	st := l.FS.SetAttr(cancel, in, out)
	l.record(&in.InHeader, "setattr", start, st, fmt.Sprintf("%d,valid=%#x", in.NodeId, in.Valid), "")
	return st
}

func (l *loggedFS) Mknod(cancel <-chan struct{}, in *gofuse.MknodIn, name string, out *gofuse.EntryOut) gofuse.Status {
	if isLogName(in.NodeId, name) {
		return gofuse.Status(syscall.EEXIST)
	}
	if !l.log.Active() {
		return l.FS.Mknod(cancel, in, name, out)
	}
	start := time.Now()
	st := l.FS.Mknod(cancel, in, name, out)
	l.record(&in.InHeader, "mknod", start, st, fmt.Sprintf("%s,mode=%#o", nameArg(in.NodeId, name), in.Mode), entryReply(st, out))
	return st
}

func (l *loggedFS) Mkdir(cancel <-chan struct{}, in *gofuse.MkdirIn, name string, out *gofuse.EntryOut) gofuse.Status {
	if isLogName(in.NodeId, name) {
		return gofuse.Status(syscall.EEXIST)
	}
	if !l.log.Active() {
		return l.FS.Mkdir(cancel, in, name, out)
	}
	start := time.Now()
	st := l.FS.Mkdir(cancel, in, name, out)
	l.record(&in.InHeader, "mkdir", start, st, fmt.Sprintf("%s,mode=%#o", nameArg(in.NodeId, name), in.Mode), entryReply(st, out))
	return st
}

func (l *loggedFS) Unlink(cancel <-chan struct{}, h *gofuse.InHeader, name string) gofuse.Status {
	if isLogName(h.NodeId, name) {
		return gofuse.EPERM
	}
	if !l.log.Active() {
		return l.FS.Unlink(cancel, h, name)
	}
	start := time.Now()
	st := l.FS.Unlink(cancel, h, name)
	l.record(h, "unlink", start, st, nameArg(h.NodeId, name), "")
	return st
}

func (l *loggedFS) Rmdir(cancel <-chan struct{}, h *gofuse.InHeader, name string) gofuse.Status {
	if isLogName(h.NodeId, name) {
		return gofuse.Status(syscall.ENOTDIR)
	}
	if !l.log.Active() {
		return l.FS.Rmdir(cancel, h, name)
	}
	start := time.Now()
	st := l.FS.Rmdir(cancel, h, name)
	l.record(h, "rmdir", start, st, nameArg(h.NodeId, name), "")
	return st
}

func (l *loggedFS) Rename(cancel <-chan struct{}, in *gofuse.RenameIn, oldName, newName string) gofuse.Status {
	if isLogName(in.NodeId, oldName) || isLogName(in.Newdir, newName) {
		return gofuse.EPERM
	}
	if !l.log.Active() {
		return l.FS.Rename(cancel, in, oldName, newName)
	}
	start := time.Now()
	st := l.FS.Rename(cancel, in, oldName, newName)
	l.record(&in.InHeader, "rename", start, st, nameArg(in.NodeId, oldName)+","+nameArg(in.Newdir, newName)+fmt.Sprintf(",flags=%#x", in.Flags), "")
	return st
}

func (l *loggedFS) Link(cancel <-chan struct{}, in *gofuse.LinkIn, name string, out *gofuse.EntryOut) gofuse.Status {
	if in.Oldnodeid == accessLogIno {
		return gofuse.EPERM
	}
	if isLogName(in.NodeId, name) {
		return gofuse.Status(syscall.EEXIST)
	}
	if !l.log.Active() {
		return l.FS.Link(cancel, in, name, out)
	}
	start := time.Now()
	st := l.FS.Link(cancel, in, name, out)
	l.record(&in.InHeader, "link", start, st, nameArg(in.NodeId, name)+",ino="+inoArg(in.Oldnodeid), entryReply(st, out))
	return st
}

func (l *loggedFS) Symlink(cancel <-chan struct{}, h *gofuse.InHeader, target, name string, out *gofuse.EntryOut) gofuse.Status {
	if isLogName(h.NodeId, name) {
		return gofuse.Status(syscall.EEXIST)
	}
	if !l.log.Active() {
		return l.FS.Symlink(cancel, h, target, name, out)
	}
	start := time.Now()
	st := l.FS.Symlink(cancel, h, target, name, out)
	l.record(h, "symlink", start, st, nameArg(h.NodeId, name)+fmt.Sprintf(",target=%q", target), entryReply(st, out))
	return st
}

func (l *loggedFS) Readlink(cancel <-chan struct{}, h *gofuse.InHeader) ([]byte, gofuse.Status) {
	if h.NodeId == accessLogIno {
		return nil, gofuse.EINVAL
	}
	if !l.log.Active() {
		return l.FS.Readlink(cancel, h)
	}
	start := time.Now()
	target, st := l.FS.Readlink(cancel, h)
	l.record(h, "readlink", start, st, inoArg(h.NodeId), "")
	return target, st
}

func (l *loggedFS) Access(cancel <-chan struct{}, in *gofuse.AccessIn) gofuse.Status {
	if in.NodeId == accessLogIno {
		return l.file.access(in)
	}
	if !l.log.Active() {
		return l.FS.Access(cancel, in)
	}
	start := time.Now()
	st := l.FS.Access(cancel, in)
	l.record(&in.InHeader, "access", start, st, fmt.Sprintf("%d,mask=%#o", in.NodeId, in.Mask), "")
	return st
}

func (l *loggedFS) StatFs(cancel <-chan struct{}, h *gofuse.InHeader, out *gofuse.StatfsOut) gofuse.Status {
	if !l.log.Active() {
		return l.FS.StatFs(cancel, h, out)
	}
	start := time.Now()
	st := l.FS.StatFs(cancel, h, out)
	l.record(h, "statfs", start, st, inoArg(h.NodeId), "")
	return st
}
