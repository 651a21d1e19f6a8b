package fuse

import (
	"errors"
	"syscall"
	"time"

	gofuse "github.com/hanwen/go-fuse/v2/fuse"

	"cairn/meta"
)

// Create answers ESTALE, not EEXIST, for a name that exists without
// O_EXCL: the kernel sends a create for a name this mount holds as
// missing, and another mount may have made it since (within the entry
// cache duration). On ESTALE the kernel walks the path again, looking
// every name up afresh (LOOKUP_REVAL); the failed create has made the
// client forget the name, so the kernel finds the file and opens it with
// all of open(2)'s rules (permissions, symbolic links, O_TRUNC).
func (fs *FS) Create(cancel <-chan struct{}, in *gofuse.CreateIn, name string, out *gofuse.CreateOut) gofuse.Status {
	defer fs.observe("create", time.Now())
	fh, e, err := fs.v.Create(ctxOf(cancel), fs.cred(&in.InHeader), fs.ino(in.NodeId), name, uint16(in.Mode&07777), in.Flags)
	if errors.Is(err, meta.ErrExists) && in.Flags&syscall.O_EXCL == 0 {
		return gofuse.Status(syscall.ESTALE)
	}
	if err != nil {
		return fs.errno("create", err)
	}
	fs.entryOut(&out.EntryOut, e)
	out.OpenOut.Fh = fh
	return gofuse.OK
}

func (fs *FS) Open(cancel <-chan struct{}, in *gofuse.OpenIn, out *gofuse.OpenOut) gofuse.Status {
	defer fs.observe("open", time.Now())
	fh, a, err := fs.v.Open(ctxOf(cancel), fs.cred(&in.InHeader), fs.ino(in.NodeId), in.Flags)
	if err != nil {
		return fs.errno("open", err)
	}
	out.Fh = fh
	if fs.ino(in.NodeId) == statsIno {
		out.OpenFlags |= gofuse.FOPEN_DIRECT_IO
	} else if fs.pages.open(fs.ino(in.NodeId), a) {
		out.OpenFlags |= gofuse.FOPEN_KEEP_CACHE
	}
	return gofuse.OK
}

func (fs *FS) Read(cancel <-chan struct{}, in *gofuse.ReadIn, buf []byte) (gofuse.ReadResult, gofuse.Status) {
	defer fs.observe("read", time.Now())
	if int(in.Size) < len(buf) {
		buf = buf[:in.Size]
	}
	n, err := fs.v.Read(ctxOf(cancel), in.Fh, buf, in.Offset)
	if err != nil {
		return nil, fs.errno("read", err)
	}
	return gofuse.ReadResultData(buf[:n]), gofuse.OK
}

func (fs *FS) Write(cancel <-chan struct{}, in *gofuse.WriteIn, data []byte) (uint32, gofuse.Status) {
	defer fs.observe("write", time.Now())
	if in.WriteFlags&gofuse.WRITE_KILL_SUIDGID != 0 {
		// The caller lacks CAP_FSETID: the kernel sets this on each of
		// its writes, whatever the file's mode.
		if err := fs.v.ClearSetid(ctxOf(cancel), fs.cred(&in.InHeader), in.Fh); err != nil {
			return 0, fs.errno("write", err)
		}
	}
	n, err := fs.v.Write(ctxOf(cancel), in.Fh, data, in.Offset)
	if err != nil {
		return uint32(n), fs.errno("write", err)
	}
	return uint32(n), gofuse.OK
}

func (fs *FS) Flush(cancel <-chan struct{}, in *gofuse.FlushIn) gofuse.Status {
	defer fs.observe("flush", time.Now())
	return fs.errno("flush", fs.v.Flush(ctxOf(cancel), in.Fh, in.LockOwner))
}

func (fs *FS) Fsync(cancel <-chan struct{}, in *gofuse.FsyncIn) gofuse.Status {
	defer fs.observe("fsync", time.Now())
	return fs.errno("fsync", fs.v.Fsync(ctxOf(cancel), in.Fh))
}

func (fs *FS) Release(cancel <-chan struct{}, in *gofuse.ReleaseIn) {
	defer fs.observe("release", time.Now())
	var flockOwner uint64
	if in.ReleaseFlags&gofuse.FUSE_RELEASE_FLOCK_UNLOCK != 0 {
		flockOwner = in.LockOwner
	}
	fs.errno("release", fs.v.Release(ctxOf(cancel), in.Fh, flockOwner))
}

func (fs *FS) Fallocate(cancel <-chan struct{}, in *gofuse.FallocateIn) gofuse.Status {
	defer fs.observe("fallocate", time.Now())
	const supported = uint32(meta.FallocKeepSize | meta.FallocPunchHole | meta.FallocZeroRange)
	if in.Mode&^supported != 0 {
		return fs.errno("fallocate", meta.ErrNotSupported)
	}
	// Linux clears setuid and setgid on fallocate as on a write; the
	// kernel flags neither request, so the caller's uid decides.
	if err := fs.v.ClearSetid(ctxOf(cancel), fs.cred(&in.InHeader), in.Fh); err != nil {
		return fs.errno("fallocate", err)
	}
	return fs.errno("fallocate", fs.v.Fallocate(ctxOf(cancel), fs.cred(&in.InHeader), in.Fh, fs.ino(in.NodeId), uint8(in.Mode), in.Offset, in.Length))
}

func (fs *FS) CopyFileRange(cancel <-chan struct{}, in *gofuse.CopyFileRangeIn) (uint32, gofuse.Status) {
	defer fs.observe("copy_file_range", time.Now())
	// The destination is written: setuid and setgid go as on a write.
	if err := fs.v.ClearSetid(ctxOf(cancel), fs.cred(&in.InHeader), in.FhOut); err != nil {
		return 0, fs.errno("copy_file_range", err)
	}
	n, err := fs.v.CopyFileRange(ctxOf(cancel), in.FhIn, in.OffIn, in.FhOut, in.OffOut, min(in.Len, 1<<30))
	if err != nil && n == 0 {
		return 0, fs.errno("copy_file_range", err)
	}
	return uint32(n), gofuse.OK
}

func (fs *FS) FsyncDir(cancel <-chan struct{}, in *gofuse.FsyncIn) gofuse.Status {
	return gofuse.OK
}
