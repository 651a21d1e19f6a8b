package vfs

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"syscall"

	"cairn/meta"
)

// handle is one open file description (what the kernel calls fh).
type handle struct {
	fh    uint64
	ino   meta.Ino
	flags uint32
	file  *file // regular files
	dir   *dirStream
	stats []byte // the .stats snapshot

	mu        sync.Mutex
	usedFlock bool // took a flock: release it on release
}

func (h *handle) writable() bool {
	return h.flags&syscall.O_ACCMODE != syscall.O_RDONLY
}

func (h *handle) readable() bool {
	return h.flags&syscall.O_ACCMODE != syscall.O_WRONLY
}

func (v *VFS) addHandle(h *handle) uint64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	h.fh = v.nextFh
	v.nextFh++
	v.handles[h.fh] = h
	return h.fh
}

func (v *VFS) handle(fh uint64) (*handle, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	h := v.handles[fh]
	if h == nil {
		return nil, meta.ErrBadHandle
	}
	return h, nil
}

func (v *VFS) dropHandle(fh uint64) *handle {
	v.mu.Lock()
	defer v.mu.Unlock()
	h := v.handles[fh]
	delete(v.handles, fh)
	return h
}

// accessMask is the permission an open with flags needs.
func accessMask(flags uint32) uint32 {
	var m uint32
	switch flags & syscall.O_ACCMODE {
	case syscall.O_RDONLY:
		m = meta.MayRead
	case syscall.O_WRONLY:
		m = meta.MayWrite
	default:
		m = meta.MayRead | meta.MayWrite
	}
	if flags&syscall.O_TRUNC != 0 {
		m |= meta.MayWrite
	}
	return m
}

// Open opens ino with open(2) flags. It reads the attributes afresh
// (close-to-open) and drops cached slice lists.
func (v *VFS) Open(ctx context.Context, cred meta.Cred, ino meta.Ino, flags uint32) (uint64, meta.Attr, error) {
	if ino == StatsIno {
		if flags&syscall.O_ACCMODE != syscall.O_RDONLY {
			return 0, meta.Attr{}, meta.ErrAccess
		}
		data := v.statsJSON(ctx)
		return v.addHandle(&handle{ino: ino, flags: flags, stats: data}), statsAttr(len(data)), nil
	}
	a, changed, err := v.client.RefreshAttr(ctx, ino)
	if err != nil {
		return 0, meta.Attr{}, err
	}
	if changed {
		// The kernel may hold attributes from before another client's
		// change; drop them so that reads see the new length.
		v.mu.Lock()
		inval := v.invalidate
		v.mu.Unlock()
		if inval != nil {
			inval(ino)
		}
	}
	writing := flags&syscall.O_ACCMODE != syscall.O_RDONLY || flags&syscall.O_TRUNC != 0
	if a.IsDir() && writing {
		return 0, meta.Attr{}, meta.ErrIsDir
	}
	if writing && v.cfg.ReadOnly {
		return 0, meta.Attr{}, meta.ErrReadOnly
	}
	if v.cfg.CheckPermission {
		if err := meta.Access(&a, cred, accessMask(flags)); err != nil {
			return 0, meta.Attr{}, err
		}
	}
	h := &handle{ino: ino, flags: flags}
	if a.Type == meta.TypeFile {
		h.file = v.getFile(ino)
		h.file.mu.Lock()
		h.file.invalidate(-1)
		h.file.mu.Unlock()
	}
	v.client.Opened(ino)
	if h.file != nil && flags&syscall.O_TRUNC != 0 && a.Length > 0 {
		if a, err = v.truncate(ctx, cred, ino, 0); err != nil {
			v.release(ctx, h)
			return 0, meta.Attr{}, err
		}
	}
	if h.file != nil && flags&syscall.O_TRUNC != 0 {
		if a, err = v.clearSetid(ctx, cred, ino, a); err != nil {
			v.release(ctx, h)
			return 0, meta.Attr{}, err
		}
	}
	return v.addHandle(h), v.overlay(ino, a), nil
}

// Create makes a regular file parent/name and opens it.
func (v *VFS) Create(ctx context.Context, cred meta.Cred, parent meta.Ino, name string, mode uint16, flags uint32) (uint64, Entry, error) {
	e, err := v.Mknod(ctx, cred, parent, name, meta.TypeFile, mode, 0)
	if err != nil {
		return 0, Entry{}, err
	}
	h := &handle{ino: e.Ino, flags: flags, file: v.getFile(e.Ino)}
	v.client.Opened(e.Ino)
	return v.addHandle(h), e, nil
}

// Read reads from an open file at off into p.
func (v *VFS) Read(ctx context.Context, fh uint64, p []byte, off uint64) (int, error) {
	h, err := v.handle(fh)
	if err != nil {
		return 0, err
	}
	if h.stats != nil {
		if off >= uint64(len(h.stats)) {
			return 0, nil
		}
		return copy(p, h.stats[off:]), nil
	}
	// No check of the access mode: the kernel checks it for read(2), and
	// with writeback_cache it reads pages through write-only handles to
	// fill partly written pages.
	if h.file == nil {
		return 0, meta.ErrIsDir
	}
	n, err := v.read(ctx, h.file, p, off)
	v.requests.readBytes.Add(uint64(max(n, 0)))
	return n, err
}

// Write writes p at off through an open file.
func (v *VFS) Write(ctx context.Context, fh uint64, p []byte, off uint64) (int, error) {
	h, err := v.handle(fh)
	if err != nil {
		return 0, err
	}
	if !h.writable() || h.file == nil {
		return 0, meta.ErrBadHandle
	}
	if v.cfg.ReadOnly {
		return 0, meta.ErrReadOnly
	}
	n, err := v.write(ctx, h.file, p, off)
	v.requests.writtenBytes.Add(uint64(max(n, 0)))
	return n, err
}

// Flush is called on every close of a descriptor: buffered writes are
// committed (close-to-open), and the byte-range locks of lockOwner go.
func (v *VFS) Flush(ctx context.Context, fh uint64, lockOwner uint64) error {
	h, err := v.handle(fh)
	if err != nil {
		return err
	}
	var ferr error
	if h.file != nil {
		ferr = v.flush(ctx, h.file)
	}
	// POSIX: closing any descriptor of a file drops all the locks the
	// process (lock owner) holds on it, whichever descriptor took them.
	if v.forgetLockOwner(h.ino, lockOwner) {
		l := meta.Lock{Type: meta.LockUnlock, Start: 0, End: ^uint64(0)}
		if err := v.client.SetLk(ctx, h.ino, lockOwner, l); err != nil && ferr == nil {
			ferr = fmt.Errorf("release locks: %w", err)
		}
	}
	return ferr
}

// Fsync commits buffered writes and returns when data and metadata are
// durable.
func (v *VFS) Fsync(ctx context.Context, fh uint64) error {
	h, err := v.handle(fh)
	if err != nil {
		return err
	}
	if h.file == nil {
		return nil
	}
	return v.flush(ctx, h.file)
}

// Release closes a handle for good. flockOwner, when nonzero, is the owner
// whose flock goes with it.
func (v *VFS) Release(ctx context.Context, fh uint64, flockOwner uint64) error {
	h := v.dropHandle(fh)
	if h == nil {
		return meta.ErrBadHandle
	}
	var errs []error
	h.mu.Lock()
	flock := h.usedFlock
	h.mu.Unlock()
	if flock && flockOwner != 0 {
		if err := v.client.Flock(ctx, h.ino, flockOwner, meta.LockUnlock); err != nil {
			errs = append(errs, fmt.Errorf("release flock: %w", err))
		}
	}
	if err := v.release(ctx, h); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func (v *VFS) release(ctx context.Context, h *handle) error {
	if h.stats != nil || h.dir != nil {
		return nil
	}
	var errs []error
	if h.file != nil {
		if err := v.flush(ctx, h.file); err != nil {
			errs = append(errs, err)
		}
		v.putFile(h.file)
	}
	released, err := v.client.Closed(ctx, h.ino)
	if err != nil {
		errs = append(errs, err)
	}
	if released {
		v.kickGC()
	}
	return errors.Join(errs...)
}

// handleIno returns the inode an open handle refers to.
func (v *VFS) handleIno(fh uint64) (meta.Ino, error) {
	h, err := v.handle(fh)
	if err != nil {
		return 0, err
	}
	return h.ino, nil
}
