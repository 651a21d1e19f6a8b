package fuse

import (
	"fmt"
	"os"
	"strings"
	"time"

	gofuse "github.com/hanwen/go-fuse/v2/fuse"

	"cairn/vfs"
)

// Options are how a volume is mounted.
type Options struct {
	// FsName is the source shown by mount and df (e.g. "cairn:NAME").
	FsName string
	// AllowOther lets other users use the mount.
	AllowOther bool
	// DefaultPermissions lets the kernel check permission bits.
	DefaultPermissions bool
	// ReadOnly mounts read-only.
	ReadOnly bool
	// WritebackCache lets the kernel buffer writes (writeback_cache).
	WritebackCache bool
	// Extra are further -o options passed to the kernel as they are.
	Extra []string
	// Debug logs every request.
	Debug bool
}

// maxIO is the largest read or write the kernel sends in one request.
const maxIO = 1 << 20

// Mount mounts v at mountpoint and starts serving it; it returns once the
// kernel has the mount. Wait on the server, and Unmount it, to stop.
func Mount(v *vfs.VFS, mountpoint string, o Options) (*gofuse.Server, error) {
	opts := &gofuse.MountOptions{
		FsName:               o.FsName,
		Name:                 "cairn",
		AllowOther:           o.AllowOther,
		MaxWrite:             maxIO,
		MaxReadAhead:         maxIO,
		MaxBackground:        64,
		EnableLocks:          true,
		EnableSymlinkCaching: true,
		Debug:                o.Debug,
		DisableXAttrs:        false,
		IgnoreSecurityLabels: true, // the kernel asks security.capability on every write
		PanicHandler: func(p any) gofuse.Status {
			fmt.Fprintf(os.Stderr, "cairn: panic in a FUSE request: %v\n", p)
			return gofuse.EIO
		},
	}
	if o.DefaultPermissions {
		opts.Options = append(opts.Options, "default_permissions")
	}
	if o.ReadOnly {
		opts.Options = append(opts.Options, "ro")
	}
	if o.WritebackCache {
		opts.ExtraCapabilities |= gofuse.CAP_WRITEBACK_CACHE
	}
	opts.Options = append(opts.Options, o.Extra...)
	srv, err := gofuse.NewServer(NewFS(v), mountpoint, opts)
	if err != nil {
		return nil, fmt.Errorf("mount %s: %w", mountpoint, err)
	}
	go srv.Serve()
	if err := srv.WaitMount(); err != nil {
		_ = srv.Unmount()
		return nil, fmt.Errorf("mount %s: %w", mountpoint, err)
	}
	return srv, nil
}

// Unmount detaches the mount, retrying for a while when it is busy.
func Unmount(srv *gofuse.Server) error {
	var err error
	for i := 0; i < 20; i++ {
		if err = srv.Unmount(); err == nil || !strings.Contains(err.Error(), "busy") {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
	return err
}
