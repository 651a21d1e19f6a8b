package fuse

import (
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"syscall"
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
	// ReadAhead is how far ahead of a sequential reader the kernel may ask
	// (default 16 MiB; negative: the kernel's own default, 128 KiB).
	ReadAhead int
}

// maxIO is the largest read or write the kernel sends in one request.
const maxIO = 1 << 20

// Mount mounts v at mountpoint and starts serving it; it returns once the
// kernel has the mount. Wait on the server, and Unmount it, to stop.
func Mount(v *vfs.VFS, mountpoint string, o Options) (*gofuse.Server, error) {
	srv, err := gofuse.NewServer(newLoggedFS(NewFS(v)), mountpoint, mountOptions(o))
	if err != nil {
		return nil, fmt.Errorf("mount %s: %w", mountpoint, err)
	}
	go srv.Serve()
	if err := srv.WaitMount(); err != nil {
		_ = srv.Unmount()
		return nil, fmt.Errorf("mount %s: %w", mountpoint, err)
	}
	if o.ReadAhead >= 0 {
		ra := o.ReadAhead
		if ra == 0 {
			ra = defaultReadAhead
		}
		if err := setReadAhead(mountpoint, ra); err != nil {
			slog.Debug("kernel readahead left at its default", "mountpoint", mountpoint, "err", err)
		}
	}
	return srv, nil
}

// mountOptions are go-fuse's options for a mount of o: the kernel's
// options and the protocol's settings every cairn mount shares.
func mountOptions(o Options) *gofuse.MountOptions {
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
	// Setuid and setgid clearing is ours: without this the kernel clears
	// them before a write or truncate by sending a chmod with the
	// writer's credentials, which a non-owner may not do (the write
	// failed with EPERM). With it the kernel flags the writes, truncates
	// and chowns of callers without CAP_FSETID, and the FS applies
	// meta.ModeAfterWrite and meta.ModeAfterChown.
	opts.ExtraCapabilities |= gofuse.CAP_HANDLE_KILLPRIV_V2
	if o.WritebackCache {
		opts.ExtraCapabilities |= gofuse.CAP_WRITEBACK_CACHE
	}
	opts.Options = append(opts.Options, o.Extra...)
	return opts
}

// defaultReadAhead lets the kernel keep several requests of a sequential
// reader in flight. Its own default (128 KiB, whatever FUSE's
// max_readahead says) leaves one request at a time: each waits for the
// round trip through cairn of the one before, and a read of a big file
// from a local-directory volume ran at 450-690 MB/s where 16 MiB gave
// 800-880 MB/s.
const defaultReadAhead = 16 << 20

// setReadAhead sets the kernel's readahead for the mount at mountpoint
// through its backing device in sysfs (root only).
func setReadAhead(mountpoint string, bytes int) error {
	var st syscall.Stat_t
	if err := syscall.Stat(mountpoint, &st); err != nil {
		return err
	}
	dev := uint64(st.Dev)
	major := (dev>>8)&0xfff | (dev>>32)&^0xfff
	minor := dev&0xff | (dev>>12)&^0xff
	path := fmt.Sprintf("/sys/class/bdi/%d:%d/read_ahead_kb", major, minor)
	return os.WriteFile(path, []byte(strconv.Itoa(bytes>>10)), 0)
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
