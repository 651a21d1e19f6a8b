package vfs

import (
	"context"
	"errors"
	"strings"
	"time"

	"cairn/meta"
)

// StatFS is what df shows, in bytes and inodes.
type StatFS struct {
	TotalSpace, UsedSpace   uint64
	TotalInodes, UsedInodes uint64
}

// unlimited is what an unlimited volume reports as its size.
const unlimited = 1 << 50

// StatFS reports the volume's size and usage; in a mount of a
// sub-directory that has a quota, the quota's limits and usage instead
// (a limit the quota leaves open is the volume's).
func (v *VFS) StatFS(ctx context.Context) (StatFS, error) {
	s, err := v.volumeStatFS(ctx)
	if err != nil || v.Root() == meta.RootIno {
		return s, err
	}
	q, ok, err := v.client.QuotaOf(ctx, v.Root())
	if err != nil || !ok {
		return s, err
	}
	s.UsedSpace, s.UsedInodes = uint64(max(q.Space, 0)), uint64(max(q.Inodes, 0))
	if q.MaxSpace > 0 {
		s.TotalSpace = uint64(q.MaxSpace)
	}
	if q.MaxInodes > 0 {
		s.TotalInodes = uint64(q.MaxInodes)
	}
	return s, nil
}

func (v *VFS) volumeStatFS(ctx context.Context) (StatFS, error) {
	u, err := v.client.Usage(ctx)
	if err != nil {
		return StatFS{}, err
	}
	s := StatFS{UsedSpace: u.Space + v.buffered(), UsedInodes: u.Inodes}
	s.TotalSpace = v.format.Capacity
	if s.TotalSpace == 0 {
		s.TotalSpace = max(unlimited, s.UsedSpace*2)
	}
	s.TotalInodes = v.format.Inodes
	if s.TotalInodes == 0 {
		s.TotalInodes = max(unlimited/4096, s.UsedInodes*2)
	}
	return s, nil
}

// Fallocate allocates, punches a hole in or zeroes a range of ino.
func (v *VFS) Fallocate(ctx context.Context, cred meta.Cred, fh uint64, ino meta.Ino, mode uint8, off, size uint64) error {
	if v.cfg.ReadOnly {
		return meta.ErrReadOnly
	}
	// The engine's check, asked early: a bad range must fail before the
	// flush, and EFBIG before the capacity's ENOSPC, as on Linux.
	if err := meta.CheckFallocate(mode, off, size); err != nil {
		return err
	}
	if h, err := v.handle(fh); err == nil {
		if !h.writable() {
			return meta.ErrBadHandle
		}
		// As ftruncate: the descriptor's mode was checked at open.
		cred = meta.RootCred
	}
	f := v.lookupFile(ino)
	if f != nil {
		if err := v.flush(ctx, f); err != nil {
			return err
		}
	}
	if mode&meta.FallocPunchHole == 0 && mode&meta.FallocKeepSize == 0 {
		a, err := v.client.GetAttr(ctx, ino)
		if err != nil {
			return err
		}
		if off+size > a.Length {
			if err := v.haveSpace(ctx, off+size-a.Length); err != nil {
				return err
			}
		}
	}
	_, err := v.client.Fallocate(ctx, cred, ino, mode, off, size)
	if err == nil && mode&(meta.FallocPunchHole|meta.FallocZeroRange) != 0 {
		v.kickGC()
	}
	if f != nil {
		f.mu.Lock()
		f.invalidate(-1)
		f.mu.Unlock()
	}
	return err
}

// CopyFileRange copies size bytes from one open file to another, through
// this VFS, and returns how many it copied.
func (v *VFS) CopyFileRange(ctx context.Context, fhIn uint64, offIn uint64, fhOut uint64, offOut uint64, size uint64) (uint64, error) {
	in, err := v.handle(fhIn)
	if err != nil {
		return 0, err
	}
	if _, err := v.handle(fhOut); err != nil {
		return 0, err
	}
	if !in.readable() {
		return 0, meta.ErrBadHandle
	}
	buf := make([]byte, min(size, 1<<20))
	var done uint64
	for done < size {
		n := min(uint64(len(buf)), size-done)
		r, err := v.Read(ctx, fhIn, buf[:n], offIn+done)
		if err != nil {
			return done, err
		}
		if r == 0 {
			break
		}
		w, err := v.Write(ctx, fhOut, buf[:r], offOut+done)
		done += uint64(w)
		if err != nil {
			return done, err
		}
		if r < int(n) {
			break
		}
	}
	return done, nil
}

// Extended attributes.

func (v *VFS) GetXattr(ctx context.Context, ino meta.Ino, name string) ([]byte, error) {
	if ino == StatsIno {
		return nil, meta.ErrNoAttr
	}
	return v.client.GetXattr(ctx, ino, name)
}

func (v *VFS) ListXattr(ctx context.Context, ino meta.Ino) ([]string, error) {
	if ino == StatsIno {
		return nil, nil
	}
	return v.client.ListXattr(ctx, ino)
}

func (v *VFS) SetXattr(ctx context.Context, cred meta.Cred, ino meta.Ino, name string, value []byte, flags uint32) error {
	if v.cfg.ReadOnly {
		return meta.ErrReadOnly
	}
	if ino == StatsIno {
		return meta.ErrNotPermitted
	}
	cred, err := v.xattrCred(ctx, cred, ino, name)
	if err != nil {
		return err
	}
	return v.client.SetXattr(ctx, cred, ino, name, value, flags)
}

// xattrCred applies Linux's rule for changing extended attributes in the
// user namespace — write permission on the inode, not ownership — and
// returns the identity to hand the engine. The engine's contract lets
// only the owner or root change xattrs; for a permitted user.* change
// the engine gets root's identity, since the permission check is done.
func (v *VFS) xattrCred(ctx context.Context, cred meta.Cred, ino meta.Ino, name string) (meta.Cred, error) {
	if cred.Uid == 0 || !strings.HasPrefix(name, "user.") {
		return cred, nil
	}
	a, err := v.client.GetAttr(ctx, ino)
	if err != nil {
		return cred, err
	}
	if a.Type != meta.TypeFile && a.Type != meta.TypeDirectory {
		return cred, meta.ErrNotPermitted
	}
	if err := meta.Access(&a, cred, meta.MayWrite); err != nil {
		return cred, err
	}
	if a.Type == meta.TypeDirectory && a.Mode&01000 != 0 && cred.Uid != a.Uid {
		return cred, meta.ErrNotPermitted // sticky directories: owner only
	}
	return meta.RootCred, nil
}

func (v *VFS) RemoveXattr(ctx context.Context, cred meta.Cred, ino meta.Ino, name string) error {
	if v.cfg.ReadOnly {
		return meta.ErrReadOnly
	}
	if ino == StatsIno {
		return meta.ErrNotPermitted
	}
	cred, err := v.xattrCred(ctx, cred, ino, name)
	if err != nil {
		return err
	}
	return v.client.RemoveXattr(ctx, cred, ino, name)
}

// Locks. Blocking variants poll with backoff until the lock is free or ctx
// is done (the kernel cancels when the process is interrupted).

// Flock takes or drops a whole-file lock of fh for owner.
func (v *VFS) Flock(ctx context.Context, fh uint64, owner uint64, typ uint32, wait bool) error {
	h, err := v.handle(fh)
	if err != nil {
		return err
	}
	if typ != meta.LockUnlock {
		h.mu.Lock()
		h.usedFlock = true
		h.mu.Unlock()
	}
	return poll(ctx, wait, func() error { return v.client.Flock(ctx, h.ino, owner, typ) })
}

// GetLk returns the first lock that conflicts with l.
func (v *VFS) GetLk(ctx context.Context, fh uint64, owner uint64, l meta.Lock) (meta.Lock, error) {
	h, err := v.handle(fh)
	if err != nil {
		return meta.Lock{}, err
	}
	return v.client.GetLk(ctx, h.ino, owner, l)
}

// SetLk sets or clears a byte-range lock of fh for owner.
func (v *VFS) SetLk(ctx context.Context, fh uint64, owner uint64, l meta.Lock, wait bool) error {
	h, err := v.handle(fh)
	if err != nil {
		return err
	}
	if l.Type == meta.LockRead && !h.readable() || l.Type == meta.LockWrite && !h.writable() {
		return meta.ErrBadHandle
	}
	if l.Type != meta.LockUnlock {
		v.rememberLockOwner(h.ino, owner)
	}
	return poll(ctx, wait, func() error { return v.client.SetLk(ctx, h.ino, owner, l) })
}

// poll runs try once, or, when wait is set, until it stops failing with
// ErrAgain, backing off from 1ms to 500ms between tries.
func poll(ctx context.Context, wait bool, try func() error) error {
	delay := time.Millisecond
	for {
		err := try()
		if !wait || !errors.Is(err, meta.ErrAgain) {
			return err
		}
		select {
		case <-ctx.Done():
			return meta.ErrInterrupted
		case <-time.After(delay):
		}
		delay = min(delay*2, 500*time.Millisecond)
	}
}

// rememberLockOwner notes that owner took a byte-range lock on ino here.
func (v *VFS) rememberLockOwner(ino meta.Ino, owner uint64) {
	v.mu.Lock()
	defer v.mu.Unlock()
	m := v.lockOwners[ino]
	if m == nil {
		m = make(map[uint64]bool)
		v.lockOwners[ino] = m
	}
	m[owner] = true
}

// forgetLockOwner reports whether owner may hold byte-range locks on ino,
// and forgets it.
func (v *VFS) forgetLockOwner(ino meta.Ino, owner uint64) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	m := v.lockOwners[ino]
	if !m[owner] {
		return false
	}
	delete(m, owner)
	if len(m) == 0 {
		delete(v.lockOwners, ino)
	}
	return true
}
