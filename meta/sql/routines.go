package sql

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"syscall"

	"cairn/meta"
)

// routine is a server-side function (PostgreSQL) or stored procedure
// (MySQL/MariaDB) that Init installs: a whole metadata operation, its
// permission checks included, as one statement and so one round trip.
// Each answers with one row: an errno (0 done, > 0 the operation's POSIX
// error, < 0 run it again) and then cols.
type routine struct {
	name string
	args int
	cols []string
}

// attrCols are the r_ columns a routine returns an inode's attributes in,
// in scanAttr's order.
var attrCols = strings.Split("r_"+strings.ReplaceAll(nodeCols, ", ", ", r_"), ", ")

var (
	routineWrite       = routine{name: "cairn_write", args: 8, cols: append([]string{"r_count"}, attrCols...)}
	routineCreate      = routine{name: "cairn_create", args: 12, cols: attrCols}
	routineRemove      = routine{name: "cairn_remove", args: 7, cols: append([]string{"r_ino", "r_deleted"}, attrCols...)}
	routineRmdir       = routine{name: "cairn_rmdir", args: 5}
	routineMove        = routine{name: "cairn_move", args: 9, cols: append([]string{"r_ino", "r_replaced"}, attrCols...)}
	routineLink        = routine{name: "cairn_link", args: 6, cols: attrCols}
	routineSetXattr    = routine{name: "cairn_setxattr", args: 6}
	routineRemoveXattr = routine{name: "cairn_removexattr", args: 4}
	routineSetAttr     = routine{name: "cairn_setattr", args: 10, cols: attrCols}
	routineRelease     = routine{name: "cairn_release", args: 2}
	routineTruncate    = routine{name: "cairn_truncate", args: 6, cols: attrCols}
	routineFlock       = routine{name: "cairn_flock", args: 4}
	routineSetLk       = routine{name: "cairn_setlk", args: 8}
	routineFallocate   = routine{name: "cairn_fallocate", args: 8, cols: attrCols}
)

// routinesVersion is the behaviour of the routines Init installs. Load
// installs them again when the volume records an older version, so that a
// volume formatted by an earlier release gains them; a release that
// changes a routine's arguments or results gives it a new name, so that
// clients of both releases can share the volume while they are upgraded.
const routinesVersion = 19

// callStatement is the statement that calls r and returns its row, with a
// missing value read as 0.
func (d *dialect) callStatement(r routine) string {
	marks := strings.TrimSuffix(strings.Repeat("?, ", r.args), ", ")
	if d.callProcedure {
		return "CALL " + r.name + "(" + marks + ")"
	}
	cols := append([]string{"r_errno"}, r.cols...)
	for i, c := range cols {
		cols[i] = "coalesce(" + c + ", 0)"
	}
	return "SELECT " + strings.Join(cols, ", ") + " FROM " + r.name + "(" + marks + ")"
}

// groupsArg is cred's groups as the routines read them: ",gid,g1,g2,".
func groupsArg(cred meta.Cred) string {
	var b strings.Builder
	b.WriteByte(',')
	b.WriteString(strconv.FormatUint(uint64(cred.Gid), 10))
	b.WriteByte(',')
	for _, g := range cred.Gids {
		b.WriteString(strconv.FormatUint(uint64(g), 10))
		b.WriteByte(',')
	}
	return b.String()
}

// errMissingRoutine is a routine the database does not have: the volume
// was formatted by an earlier release and Load could not install it. The
// caller runs the operation as a general transaction instead.
var errMissingRoutine = errors.New("server-side routine not installed")

// errStale is a routine's answer that what it found changed between a
// look without locks and the locks; the operation runs again.
var errStale = errors.New("attributes changed under the operation")

// errOutdated is a routine's answer that a value the caller computed
// from (rather than one the routine reads under its locks) is no longer
// the stored one: the caller reads it again and computes anew.
var errOutdated = errors.New("the caller's copy is outdated")

// callRoutine runs r with args as one statement, re-running it on
// conflicts, and scans the columns after its errno into dest. doing says
// in words what is lost when the connection breaks during the call
// ("removing \"x\", it may or may not be gone"): the outcome is then
// unknown, and the call is not repeated.
func (e *Engine) callRoutine(ctx context.Context, r routine, doing func() string, args []any, dest ...any) error {
	return e.callSettled(ctx, r, doing, nil, args, dest...)
}

// callSettled is callRoutine for an operation whose outcome can be found
// out afterwards: when the connection breaks during the call, settled
// (which reads with e.read, so waits for a restarting server) reports
// whether the operation took effect, and fills dest if so; if not, the
// call runs again. settled may instead return the errno the operation
// fails with. An EEXIST after such a break is settled too: it may be
// the operation's own earlier effect.
func (e *Engine) callSettled(ctx context.Context, r routine, doing func() string, settled func() (bool, error), args []any, dest ...any) error {
	q := e.d.callStatement(r)
	broke := false
	return e.retry(ctx, func() (bool, error) {
		c := &conn{ctx: ctx, e: e, q: e.db}
		var errno int64
		err := c.queryRow(q, args...).Scan(append([]any{&errno}, dest...)...)
		if settled != nil && ((err != nil && e.d.unknownOutcome(err)) || (broke && errno == int64(syscall.EEXIST))) {
			broke = true
			done, err2 := settled()
			var own meta.Errno
			switch {
			case errors.As(err2, &own):
				return false, err2 // the operation's own result after all
			case err2 != nil:
				return true, fmt.Errorf("%w: the connection broke while %s: %v; then: %v", meta.ErrIO, doing(), err, err2)
			case done:
				return false, nil
			}
			return false, errStale // it did not happen: again
		}
		switch {
		case err != nil && e.d.missingRoutine != nil && e.d.missingRoutine(err):
			return false, errMissingRoutine
		case err != nil && e.d.unknownOutcome(err):
			return true, fmt.Errorf("%w: the connection broke while %s: %v", meta.ErrIO, doing(), err)
		case err != nil:
			return false, err
		case errno == -2:
			return false, errOutdated
		case errno < 0:
			return false, errStale
		case errno == int64(syscall.EIO):
			return false, fmt.Errorf("%s: an entry names a missing inode: %w", doing(), meta.ErrIO)
		case errno > 0:
			return false, meta.Errno(errno)
		}
		return false, nil
	})
}

// callAttr is callRoutine for a routine that answers with an inode's
// attributes.
func (e *Engine) callAttr(ctx context.Context, r routine, doing func() string, args ...any) (meta.Attr, error) {
	var a meta.Attr
	dest, finish := attrDest(&a)
	if err := e.callRoutine(ctx, r, doing, args, dest...); err != nil {
		return meta.Attr{}, err
	}
	finish()
	return a, nil
}

// maxInodes is the volume's inode limit, 0 for none.
func (e *Engine) maxInodes() int64 {
	if f := e.limits.Load(); f != nil {
		return int64(f.Inodes)
	}
	return 0
}

// capacity is the volume's space limit in bytes, 0 for none.
func (e *Engine) capacity() int64 {
	if f := e.limits.Load(); f != nil {
		return int64(f.Capacity)
	}
	return 0
}

// mknodRoutine is Mknod as one call of cairn_create.
func (e *Engine) mknodRoutine(ctx context.Context, cred meta.Cred, parent meta.Ino, name string, ino meta.Ino, typ meta.FileType, mode uint16, rdev uint32, target string) (meta.Attr, error) {
	var a meta.Attr
	dest, finish := attrDest(&a)
	// The inode number is this call's own, so the entry tells whether
	// a call cut off by a broken connection made it.
	settled := func() (bool, error) {
		var got int64
		err := e.read(ctx, func(c *conn) error {
			return c.queryRow("SELECT e.ino, n."+strings.ReplaceAll(nodeCols, ", ", ", n.")+" FROM cairn_edge e "+
				"JOIN cairn_node n ON n.ino = e.ino WHERE e.parent = ? AND e.name = ?", int64(parent), nameArg(name)).
				Scan(append([]any{&got}, dest...)...)
		})
		switch {
		case isNoRows(err):
			return false, nil
		case err != nil:
			return false, err
		case got != int64(ino):
			return false, meta.ErrExists // somebody else's
		}
		return true, nil
	}
	err := e.callSettled(ctx, routineCreate, func() string { return fmt.Sprintf("creating %q, it may or may not exist", name) }, settled,
		[]any{int64(parent), nameArg(name), int64(ino), int64(typ), int64(mode), int64(rdev), []byte(target),
			int64(cred.Uid), int64(cred.Gid), groupsArg(cred), nowNs(), e.maxInodes()}, dest...)
	if err != nil {
		return meta.Attr{}, err
	}
	finish()
	return a, nil
}

// unlinkRoutine is UnlinkDelete (Unlink when expect is 0) as one call of
// cairn_remove.
func (e *Engine) unlinkRoutine(ctx context.Context, cred meta.Cred, parent meta.Ino, name string, sid uint64, expect meta.Ino) (meta.Ino, meta.Attr, bool, error) {
	var a meta.Attr
	var ino, deleted int64
	dest, finish := attrDest(&a)
	err := e.callRoutine(ctx, routineRemove, func() string { return fmt.Sprintf("removing %q, it may or may not be gone", name) },
		[]any{int64(parent), nameArg(name), int64(cred.Uid), groupsArg(cred), int64(sid), nowNs(), int64(expect)},
		append([]any{&ino, &deleted}, dest...)...)
	if err != nil {
		return 0, meta.Attr{}, false, err
	}
	finish()
	return meta.Ino(ino), a, deleted == 1, nil
}

// rmdirRoutine is Rmdir as one call of cairn_rmdir.
func (e *Engine) rmdirRoutine(ctx context.Context, cred meta.Cred, parent meta.Ino, name string, now int64) error {
	return e.callRoutine(ctx, routineRmdir, func() string { return fmt.Sprintf("removing directory %q, it may or may not be gone", name) },
		[]any{int64(parent), nameArg(name), int64(cred.Uid), groupsArg(cred), now})
}

// renameRoutine is Rename as one call of cairn_move.
func (e *Engine) renameRoutine(ctx context.Context, cred meta.Cred, sp meta.Ino, sn string, dp meta.Ino, dn string, flags uint32, sid uint64) (meta.Ino, meta.Attr, meta.Ino, error) {
	var a meta.Attr
	var moved, replaced int64
	dest, finish := attrDest(&a)
	err := e.callRoutine(ctx, routineMove, func() string { return fmt.Sprintf("renaming %q, it may or may not have moved", sn) },
		[]any{int64(sp), nameArg(sn), int64(dp), nameArg(dn), int64(flags), int64(cred.Uid), groupsArg(cred), int64(sid), nowNs()},
		append([]any{&moved, &replaced}, dest...)...)
	if err != nil {
		return 0, meta.Attr{}, 0, err
	}
	finish()
	return meta.Ino(moved), a, meta.Ino(replaced), nil
}

// linkRoutine is Link as one call of cairn_link.
func (e *Engine) linkRoutine(ctx context.Context, cred meta.Cred, ino, parent meta.Ino, name string) (meta.Attr, error) {
	return e.callAttr(ctx, routineLink, func() string { return fmt.Sprintf("linking %q, it may or may not exist", name) },
		int64(ino), int64(parent), nameArg(name), int64(cred.Uid), groupsArg(cred), nowNs())
}

// setXattrRoutine is SetXattr as one call of cairn_setxattr.
func (e *Engine) setXattrRoutine(ctx context.Context, cred meta.Cred, ino meta.Ino, name string, value []byte, flags uint32) error {
	return e.callRoutine(ctx, routineSetXattr, func() string { return fmt.Sprintf("setting xattr %q, it may or may not be set", name) },
		[]any{int64(ino), nameArg(name), blobArg(value), int64(flags), int64(cred.Uid), nowNs()})
}

// removeXattrRoutine is RemoveXattr as one call of cairn_removexattr.
func (e *Engine) removeXattrRoutine(ctx context.Context, cred meta.Cred, ino meta.Ino, name string) error {
	return e.callRoutine(ctx, routineRemoveXattr, func() string { return fmt.Sprintf("removing xattr %q, it may or may not be gone", name) },
		[]any{int64(ino), nameArg(name), int64(cred.Uid), nowNs()})
}

// setAttrRoutine is SetAttr as one call of cairn_setattr.
func (e *Engine) setAttrRoutine(ctx context.Context, cred meta.Cred, ino meta.Ino, set meta.SetAttr) (meta.Attr, error) {
	var which, mode, uid, gid, atime, mtime int64
	if set.Mode != nil {
		which, mode = which|1, int64(*set.Mode)
	}
	if set.Uid != nil {
		which, uid = which|2, int64(*set.Uid)
	}
	if set.Gid != nil {
		which, gid = which|4, int64(*set.Gid)
	}
	if set.Atime != nil {
		which, atime = which|8, *set.Atime
	}
	if set.Mtime != nil {
		which, mtime = which|16, *set.Mtime
	}
	if set.AtimeNow {
		which |= 32
	}
	if set.MtimeNow {
		which |= 64
	}
	if set.ClearSetid {
		which |= 128
	}
	return e.callAttr(ctx, routineSetAttr, func() string { return fmt.Sprintf("changing inode %d, it may or may not have changed", ino) },
		int64(ino), which, mode, uid, gid, atime, mtime, int64(cred.Uid), groupsArg(cred), nowNs())
}

// releaseRoutine is ReleaseOrphan as one call of cairn_release.
func (e *Engine) releaseRoutine(ctx context.Context, sid uint64, ino meta.Ino) error {
	return e.callRoutine(ctx, routineRelease, func() string { return fmt.Sprintf("deleting orphan inode %d, it may or may not be gone", ino) },
		[]any{int64(sid), int64(ino)})
}

// truncateRoutine is Truncate as one call of cairn_truncate.
func (e *Engine) truncateRoutine(ctx context.Context, cred meta.Cred, ino meta.Ino, length uint64) (meta.Attr, error) {
	return e.callAttr(ctx, routineTruncate, func() string { return fmt.Sprintf("truncating inode %d, it may or may not have changed", ino) },
		int64(ino), int64(length), int64(cred.Uid), groupsArg(cred), nowNs(), e.capacity())
}

// flockRoutine is Flock as one call of cairn_flock.
func (e *Engine) flockRoutine(ctx context.Context, ino meta.Ino, owner meta.LockOwner, typ uint32) error {
	return e.callRoutine(ctx, routineFlock, func() string { return fmt.Sprintf("locking inode %d, it may or may not be locked", ino) },
		[]any{int64(ino), int64(owner.Session), int64(owner.Owner), int64(typ)})
}

// setLkRoutine is SetLk as one call of cairn_setlk. The owner's new
// ranges are computed here (meta.ApplyLock) from a copy of its current ones
// that the engine keeps, which the routine checks against the stored
// ranges; when another engine changed them (a session's locks cleaned up,
// an inode deleted), they are read again and the call repeated.
func (e *Engine) setLkRoutine(ctx context.Context, ino meta.Ino, owner meta.LockOwner, l meta.Lock) error {
	key := ownedRanges{ino, owner}
	old, _ := e.ownLocks.Load(key)
	for attempt := 0; ; attempt++ {
		oldRanges, _ := old.([]byte)
		mine, err := decodeLocks(oldRanges)
		if err != nil {
			return err
		}
		next := encodeLocks(meta.ApplyLock(mine, l))
		err = e.callRoutine(ctx, routineSetLk, func() string { return fmt.Sprintf("locking inode %d, it may or may not be locked", ino) },
			[]any{int64(ino), int64(owner.Session), int64(owner.Owner), int64(l.Type),
				binary.BigEndian.AppendUint64(nil, l.Start), binary.BigEndian.AppendUint64(nil, l.End), blobArg(oldRanges), blobArg(next)})
		if !errors.Is(err, errOutdated) || attempt >= maxConflictRetries {
			if err == nil {
				if len(next) == 0 {
					e.ownLocks.Delete(key)
				} else {
					e.ownLocks.Store(key, next)
				}
			}
			return err
		}
		var stored []byte
		err = e.read(ctx, func(c *conn) error {
			err := c.queryRow("SELECT ranges FROM cairn_plock WHERE ino = ? AND sid = ? AND owner = ?",
				int64(ino), int64(owner.Session), int64(owner.Owner)).Scan(&stored)
			if isNoRows(err) {
				stored = nil
				return nil
			}
			return err
		})
		if err != nil {
			return err
		}
		old = stored
	}
}

// ownedRanges keys the engine's copies of its owners' byte-range locks.
type ownedRanges struct {
	ino   meta.Ino
	owner meta.LockOwner
}

// fallocateRoutine is Fallocate as one call of cairn_fallocate, after
// Fallocate's checks of its arguments.
func (e *Engine) fallocateRoutine(ctx context.Context, cred meta.Cred, ino meta.Ino, mode uint8, off, end uint64) (meta.Attr, error) {
	return e.callAttr(ctx, routineFallocate, func() string { return fmt.Sprintf("allocating in inode %d, it may or may not have changed", ino) },
		int64(ino), int64(mode), int64(off), int64(end), int64(cred.Uid), groupsArg(cred), nowNs(), e.capacity())
}

// writeRoutine is Write as one call of cairn_write. The slice's id is this
// call's own, so the chunk's list tells whether a call cut off by a broken
// connection made it.
func (e *Engine) writeRoutine(ctx context.Context, ino meta.Ino, idx uint32, s meta.Slice, mtime int64) (meta.Attr, int, error) {
	end := uint64(idx)*meta.ChunkSize + uint64(s.Pos) + uint64(s.Len)
	if end > maxLength {
		return meta.Attr{}, 0, meta.ErrTooBig
	}
	rec := meta.AppendSliceRecord(nil, s)
	var a meta.Attr
	var count int64
	dest, finish := attrDest(&a)
	dest = append([]any{&count}, dest...)
	settled := func() (bool, error) {
		var list []byte
		err := e.read(ctx, func(c *conn) error {
			return c.queryRow("SELECT n."+strings.ReplaceAll(nodeCols, ", ", ", n.")+", c.slices FROM cairn_node n "+
				"LEFT JOIN cairn_chunk c ON c.ino = n.ino AND c.idx = ? WHERE n.ino = ?", int64(idx), int64(ino)).
				Scan(append(dest[1:], &list)...)
		})
		count = int64(len(list) / meta.SliceRecordSize)
		switch {
		case isNoRows(err):
			return false, meta.ErrNotFound
		case err != nil:
			return false, err
		}
		for off := 0; off+meta.SliceRecordSize <= len(list); off += meta.SliceRecordSize {
			if bytes.Equal(list[off:off+meta.SliceRecordSize], rec) {
				return true, nil
			}
		}
		return false, nil
	}
	err := e.callSettled(ctx, routineWrite, func() string { return fmt.Sprintf("writing to inode %d, it may or may not have happened", ino) }, settled,
		[]any{int64(ino), int64(idx), rec, int64(end), int64(s.ID), int64(s.Size), mtime, e.capacity()}, dest...)
	if err != nil {
		return meta.Attr{}, 0, err
	}
	finish()
	return a, int(count), nil
}
