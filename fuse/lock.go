package fuse

import (
	"context"
	"time"

	gofuse "github.com/hanwen/go-fuse/v2/fuse"

	"cairn/meta"
)

func toLock(l *gofuse.FileLock) meta.Lock {
	return meta.Lock{Type: l.Typ, Start: l.Start, End: l.End, Pid: l.Pid}
}

func (fs *FS) GetLk(cancel <-chan struct{}, in *gofuse.LkIn, out *gofuse.LkOut) gofuse.Status {
	defer fs.observe("getlk", time.Now())
	l, err := fs.v.GetLk(ctxOf(cancel), in.Fh, in.Owner, toLock(&in.Lk))
	if err != nil {
		return fs.errno("getlk", err)
	}
	out.Lk = gofuse.FileLock{Start: l.Start, End: l.End, Typ: l.Type, Pid: l.Pid}
	return gofuse.OK
}

func (fs *FS) SetLk(cancel <-chan struct{}, in *gofuse.LkIn) gofuse.Status {
	defer fs.observe("setlk", time.Now())
	return fs.setLk(context.Background(), in, false)
}

// SetLkw waits for the lock, polling, until the kernel cancels the
// request (the process got a signal).
func (fs *FS) SetLkw(cancel <-chan struct{}, in *gofuse.LkIn) gofuse.Status {
	defer fs.observe("setlkw", time.Now())
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	go func() {
		select {
		case <-cancel:
			stop()
		case <-ctx.Done():
		}
	}()
	return fs.setLk(ctx, in, true)
}

func (fs *FS) setLk(ctx context.Context, in *gofuse.LkIn, wait bool) gofuse.Status {
	if in.LkFlags&gofuse.FUSE_LK_FLOCK != 0 {
		return fs.errno("flock", fs.v.Flock(ctx, in.Fh, in.Owner, in.Lk.Typ, wait))
	}
	return fs.errno("setlk", fs.v.SetLk(ctx, in.Fh, in.Owner, toLock(&in.Lk), wait))
}
