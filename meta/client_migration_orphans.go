package meta

import (
	"context"
	"fmt"
	"log/slog"
)

// registerLocks takes this client's locks again on dst as session sid.
// Every other client holding locks does the same, and they held them
// together on SRC, so they do not conflict; a lock that cannot be taken
// is logged (the application keeps believing it holds it).
func (c *Client) registerLocks(ctx context.Context, dst Engine, sid uint64) {
	h := c.locks
	h.mu.Lock()
	defer h.mu.Unlock()
	for k, typ := range h.flocks {
		if err := dst.Flock(ctx, k.ino, LockOwner{Session: sid, Owner: k.owner}, typ); err != nil {
			slog.Warn("take a flock again after a migration", "inode", k.ino, "err", err)
		}
	}
	for k, ranges := range h.ranges {
		for _, l := range ranges {
			if err := dst.SetLk(ctx, k.ino, LockOwner{Session: sid, Owner: k.owner}, l); err != nil {
				slog.Warn("take a byte-range lock again after a migration", "inode", k.ino, "start", l.Start, "end", l.End, "err", err)
			}
		}
	}
}

// registerOrphans copies the inodes this client holds open after their
// last link went (which a migration does not copy: they belong to the
// session) from src to dst, as orphans of session sid there: their data
// stays readable through the open handles, and the last close releases
// them on dst.
func (c *Client) registerOrphans(ctx context.Context, src, dst Engine, sid uint64) {
	c.mu.Lock()
	var orphans []Ino
	for ino, o := range c.open {
		if o.orphan {
			orphans = append(orphans, ino)
		}
	}
	c.mu.Unlock()
	for _, ino := range orphans {
		if err := moveOrphan(ctx, src, dst, sid, ino); err != nil {
			slog.Warn("keep a file unlinked while open after a migration", "inode", ino, "err", err)
		}
	}
}

// moveOrphan makes ino on dst what it is on src, under a name of its own
// in the root for a moment, and unlinks it as session sid. The engine
// calls set what they can: mode, owner, length, times, slices (ctime is
// dst's clock).
func moveOrphan(ctx context.Context, src, dst Engine, sid uint64, ino Ino) error {
	a, err := src.GetAttr(ctx, ino)
	if err != nil {
		return fmt.Errorf("read inode %d: %w", ino, err)
	}
	name := fmt.Sprintf(".cairn-migrating-orphan-%d", ino)
	if _, err := dst.Mknod(ctx, RootCred, RootIno, name, ino, a.Type, a.Mode, a.Rdev, ""); err != nil {
		return fmt.Errorf("create inode %d: %w", ino, err)
	}
	length := uint64(0)
	if a.Type == TypeFile {
		for idx := uint64(0); idx*ChunkSize < a.Length; idx++ {
			list, err := src.Read(ctx, ino, uint32(idx))
			if err != nil {
				return fmt.Errorf("read chunk %d of inode %d: %w", idx, ino, err)
			}
			for _, s := range list {
				b, _, err := dst.Write(ctx, ino, uint32(idx), s, a.Mtime)
				if err != nil {
					return fmt.Errorf("write chunk %d of inode %d: %w", idx, ino, err)
				}
				length = b.Length
			}
		}
		if length != a.Length {
			if _, err := dst.Truncate(ctx, RootCred, ino, a.Length); err != nil {
				return fmt.Errorf("set the length of inode %d: %w", ino, err)
			}
		}
	}
	set := SetAttr{Mode: &a.Mode, Uid: &a.Uid, Gid: &a.Gid, Atime: &a.Atime, Mtime: &a.Mtime}
	if _, err := dst.SetAttr(ctx, RootCred, ino, set); err != nil {
		return fmt.Errorf("set the attributes of inode %d: %w", ino, err)
	}
	if _, _, err := dst.Unlink(ctx, RootCred, RootIno, name, sid); err != nil {
		return fmt.Errorf("unlink inode %d: %w", ino, err)
	}
	return nil
}
