package fuse

import (
	"errors"
	"os"
	"sync"
	"syscall"
	"time"

	gofuse "github.com/hanwen/go-fuse/v2/fuse"

	"cairn/accesslog"
	"cairn/vfs"
)

// AccessLogName is the hidden file in a mount's root that streams the
// access log (package accesslog) to whoever reads it: one line for each
// request the mount answers from the moment the file is opened, and
// nothing ever collected while nobody reads. Only root and the user who
// mounted may read it; it is not listed by readdir.
const AccessLogName = ".accesslog"

// accessLogIno is the file's inode: next to .stats's, far above any
// inode an engine hands out.
const accessLogIno = uint64(vfs.StatsIno) - 1

// accessLogFile serves the .accesslog file: every request on its inode
// ends here, none reaches the VFS.
type accessLogFile struct {
	stream *accesslog.Stream
	owner  uint32 // the uid that mounted
	group  uint32

	mu      sync.Mutex
	next    uint64
	readers map[uint64]*accesslog.Reader
}

func newAccessLogFile(stream *accesslog.Stream) *accessLogFile {
	return &accessLogFile{stream: stream, owner: uint32(os.Getuid()), group: uint32(os.Getgid()), readers: make(map[uint64]*accesslog.Reader)}
}

func (f *accessLogFile) fillAttr(out *gofuse.Attr) {
	now := uint64(time.Now().Unix())
	*out = gofuse.Attr{Ino: accessLogIno, Mode: syscall.S_IFREG | 0o400, Nlink: 1, Blksize: 4096,
		Owner: gofuse.Owner{Uid: f.owner, Gid: f.group}, Atime: now, Mtime: now, Ctime: now}
}

func (f *accessLogFile) lookup(out *gofuse.EntryOut) gofuse.Status {
	out.NodeId = accessLogIno
	out.Generation = 1
	out.SetEntryTimeout(time.Second)
	out.SetAttrTimeout(time.Second)
	f.fillAttr(&out.Attr)
	return gofuse.OK
}

func (f *accessLogFile) getAttr(out *gofuse.AttrOut) gofuse.Status {
	out.SetTimeout(time.Second)
	f.fillAttr(&out.Attr)
	return gofuse.OK
}

// mayRead: root and the user who mounted.
func (f *accessLogFile) mayRead(h *gofuse.InHeader) bool {
	return h.Uid == 0 || h.Uid == f.owner
}

func (f *accessLogFile) access(in *gofuse.AccessIn) gofuse.Status {
	if in.Mask&(gofuse.W_OK|gofuse.X_OK) != 0 || (in.Mask&gofuse.R_OK != 0 && !f.mayRead(&in.InHeader)) {
		return gofuse.EACCES
	}
	return gofuse.OK
}

func (f *accessLogFile) open(in *gofuse.OpenIn, out *gofuse.OpenOut) gofuse.Status {
	if !f.mayRead(&in.InHeader) || in.Flags&syscall.O_ACCMODE != syscall.O_RDONLY {
		return gofuse.EACCES
	}
	r := f.stream.Open()
	f.mu.Lock()
	f.next++
	out.Fh = f.next
	f.readers[f.next] = r
	f.mu.Unlock()
	// A stream: every read gets the next lines, whatever the offset.
	out.OpenFlags |= gofuse.FOPEN_DIRECT_IO | gofuse.FOPEN_NONSEEKABLE
	return gofuse.OK
}

// read waits for lines; the kernel cancels the request when the reader
// gets a signal (Ctrl-C on 'cat .accesslog').
func (f *accessLogFile) read(cancel <-chan struct{}, in *gofuse.ReadIn, buf []byte) (gofuse.ReadResult, gofuse.Status) {
	f.mu.Lock()
	r := f.readers[in.Fh]
	f.mu.Unlock()
	if r == nil {
		return nil, gofuse.EBADF
	}
	if int(in.Size) < len(buf) {
		buf = buf[:in.Size]
	}
	n, err := r.Read(cancel, buf)
	if errors.Is(err, accesslog.ErrCanceled) {
		return nil, gofuse.EINTR
	}
	if err != nil {
		return nil, gofuse.EBADF
	}
	return gofuse.ReadResultData(buf[:n]), gofuse.OK
}

func (f *accessLogFile) release(in *gofuse.ReleaseIn) {
	f.mu.Lock()
	r := f.readers[in.Fh]
	delete(f.readers, in.Fh)
	f.mu.Unlock()
	if r != nil {
		r.Close()
	}
}
