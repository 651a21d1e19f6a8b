package meta

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// trashState is what a Client knows of the volume's trash (see trash.go).
type trashState struct {
	days atomic.Int64 // Format.TrashDays, reloaded by the purge job
	// hour is the inode of the hour folder this client last made sure of.
	hour atomic.Uint64
	// disabled is set when the root holds a ".trash" that is not the
	// trash (a volume from before the trash): deletions are then final.
	disabled atomic.Bool

	purging atomic.Bool
	jobs    sync.WaitGroup
	now     func() time.Time // the clock; tests move it
}

// TrashDays is how many days this client keeps what is deleted (0: off).
func (c *Client) TrashDays() int { return int(c.trash.days.Load()) }

// SetTrashDays changes TrashDays for this client until the purge job reads
// the volume's setting again.
func (c *Client) SetTrashDays(days int) { c.trash.days.Store(int64(max(days, 0))) }

// SetClock replaces the clock that names hour folders and decides expiry.
// Tests use it to move time; call it before any other use.
func (c *Client) SetClock(now func() time.Time) { c.trash.now = now }

func (c *Client) clock() time.Time {
	if c.trash.now != nil {
		return c.trash.now()
	}
	return time.Now()
}

// keeping reports whether a deletion in dir goes to the trash: the trash
// is on, and dir is not itself in the trash (what is removed from the
// trash is gone).
func (c *Client) keeping(ctx context.Context, dir Ino) (bool, error) {
	if c.TrashDays() == 0 || c.trash.disabled.Load() {
		return false, nil
	}
	in, err := c.InTrash(ctx, dir)
	return !in, err
}

// InTrash reports whether directory dir is the trash, an hour folder, or
// a directory somewhere under one, by following its parents.
func (c *Client) InTrash(ctx context.Context, dir Ino) (bool, error) {
	for range 4096 {
		if IsTrashIno(dir) {
			return true, nil
		}
		if dir == RootIno || dir == 0 {
			return false, nil
		}
		a, err := c.GetAttr(ctx, dir)
		if err != nil {
			return false, err
		}
		dir = a.Parent
	}
	return false, fmt.Errorf("directory %d: parent chain longer than 4096: %w", dir, ErrIO)
}

// refuseTrashCreate refuses a new name in the trash or its hour folders,
// and the name of the trash in the root.
func refuseTrashCreate(parent Ino, name string) error {
	if IsTrashIno(parent) || (parent == RootIno && name == TrashName) {
		return ErrNotPermitted
	}
	return nil
}

// TrashFolder makes sure the trash and the folder of the current hour
// exist, and returns the folder's inode.
func (c *Client) TrashFolder(ctx context.Context) (Ino, error) {
	name, ino := TrashHour(c.clock())
	if Ino(c.trash.hour.Load()) == ino {
		return ino, nil
	}
	if err := c.makeTrashDir(ctx, RootIno, TrashName, TrashIno, TrashDirMode); err != nil {
		return 0, err
	}
	if err := c.makeTrashDir(ctx, TrashIno, name, ino, TrashHourMode); err != nil {
		return 0, err
	}
	c.trash.hour.Store(uint64(ino))
	return ino, nil
}

// errNoTrash means the root's ".trash" is something else.
var errNoTrash = errors.New("the root holds a .trash that is not cairn's trash")

func (c *Client) makeTrashDir(ctx context.Context, parent Ino, name string, ino Ino, mode uint16) error {
	_, err := c.eng.Mknod(ctx, RootCred, parent, name, ino, TypeDirectory, mode, 0, "")
	c.nameUnsure(parent, name)
	if err == nil {
		c.attrs.drop(parent)
		c.stats.add(parent, DirStat{Inodes: 1})
		return nil
	}
	if !errors.Is(err, ErrExists) {
		return fmt.Errorf("create the trash folder %s: %w", name, err)
	}
	got, _, err := c.eng.Lookup(ctx, parent, name)
	if err != nil {
		return fmt.Errorf("look up the trash folder %s: %w", name, err)
	}
	if got != ino {
		return errNoTrash
	}
	return nil
}

// trashFolderOrOff is TrashFolder, turning the trash off for good when
// the root's ".trash" is not the trash.
func (c *Client) trashFolderOrOff(ctx context.Context) (Ino, bool, error) {
	hour, err := c.TrashFolder(ctx)
	if errors.Is(err, errNoTrash) {
		if !c.trash.disabled.Swap(true) {
			slog.Warn("the trash is off: the volume's root holds a .trash of its own; rename it to turn the trash on")
		}
		return 0, false, nil
	}
	return hour, err == nil, err
}

// intoTrash runs move with the current hour folder, made sure of. The
// folder this client remembers may have been purged by another client
// (a --trash-days lowered to 0): on ErrNotFound it makes sure again and
// runs move once more. ok is false when the trash turned out to be off.
func (c *Client) intoTrash(ctx context.Context, move func(hour Ino) error) (ok bool, err error) {
	for attempt := 0; ; attempt++ {
		hour, ok, err := c.trashFolderOrOff(ctx)
		if err != nil || !ok {
			return false, err
		}
		err = move(hour)
		if !errors.Is(err, ErrNotFound) || attempt == 1 {
			return true, err
		}
		c.trash.hour.CompareAndSwap(uint64(hour), 0)
	}
}

// Rename moves srcParent/srcName to dstParent/dstName (renameat2 flags).
// replaced is the inode that lost its last link to the move, if any. With
// the trash on, a non-directory with one link that the move replaces is
// first linked into the trash; nothing moves into or out of the trash.
func (c *Client) Rename(ctx context.Context, cred Cred, srcParent Ino, srcName string, dstParent Ino, dstName string, flags uint32) (Ino, Attr, Ino, error) {
	if IsTrashIno(srcParent) || refuseTrashCreate(dstParent, dstName) != nil || (srcParent == RootIno && srcName == TrashName) {
		return 0, Attr{}, 0, ErrNotPermitted
	}
	if flags&(RenameExchange|RenameNoReplace) != 0 {
		return c.rename(ctx, cred, srcParent, srcName, dstParent, dstName, flags)
	}
	keep, err := c.keeping(ctx, dstParent)
	if err != nil {
		return 0, Attr{}, 0, err
	}
	if !keep {
		return c.rename(ctx, cred, srcParent, srcName, dstParent, dstName, flags)
	}
	// The names as the caches know them, within the entry cache
	// durations: the kernel looked both up just before.
	victim, a, err := c.lookupName(ctx, dstParent, dstName)
	if errors.Is(err, ErrNotFound) {
		// Held missing: if another mount made it since, the move does
		// not replace it unseen (renameOnce), and it is looked up again.
		moved, attr, replaced, rerr := c.renameOnce(ctx, cred, srcParent, srcName, dstParent, dstName, flags, true)
		if !errors.Is(rerr, errUnseenTarget) {
			return moved, attr, replaced, rerr
		}
		victim, a, err = c.lookupName(ctx, dstParent, dstName)
	}
	if err != nil || a.IsDir() || a.Nlink != 1 {
		return c.rename(ctx, cred, srcParent, srcName, dstParent, dstName, flags)
	}
	if src, _, err := c.lookupName(ctx, srcParent, srcName); err != nil || src == victim {
		return c.rename(ctx, cred, srcParent, srcName, dstParent, dstName, flags)
	}
	kept := TrashEntryName(dstParent, victim, dstName)
	var hour Ino
	ok, err := c.intoTrash(ctx, func(h Ino) error {
		hour = h
		_, err := c.eng.Link(ctx, RootCred, victim, hour, kept)
		c.nameUnsure(hour, kept)
		return err
	})
	if !ok || err != nil {
		return c.rename(ctx, cred, srcParent, srcName, dstParent, dstName, flags)
	}
	c.attrs.drop(victim, hour)
	moved, attr, replaced, err := c.rename(ctx, cred, srcParent, srcName, dstParent, dstName, flags)
	if err != nil {
		if _, _, undo := c.eng.Unlink(ctx, RootCred, hour, kept, c.Session()); undo != nil {
			slog.Warn("remove a trash link after a failed rename", "entry", kept, "err", undo)
		}
		c.nameUnsure(hour, kept)
		c.attrs.drop(victim, hour)
	}
	return moved, attr, replaced, err
}

// hideTrash leaves the trash out of a page of the root's entries. A full
// page is filled up again with the entry after it, since a short page
// means the end.
func (c *Client) hideTrash(ctx context.Context, es []Entry, limit int, plus bool) ([]Entry, error) {
	for i, e := range es {
		if e.Name != TrashName || !IsTrashIno(e.Ino) {
			continue
		}
		last := es[len(es)-1].Name
		full := limit > 0 && len(es) == limit
		es = append(es[:i:i], es[i+1:]...)
		if !full {
			return es, nil
		}
		more, err := c.eng.Readdir(ctx, RootIno, last, 1, plus)
		return append(es, more...), err
	}
	return es, nil
}

// MoveToTrash moves parent/name, a file or a whole directory tree, into
// the trash with one Rename, with cred's permissions. It is how 'cairn
// rmr' removes a tree while the trash is on; ok is false (and nothing
// moved) when the trash is off or parent is in the trash already.
func (c *Client) MoveToTrash(ctx context.Context, cred Cred, parent Ino, name string) (ok bool, err error) {
	if keep, err := c.keeping(ctx, parent); err != nil || !keep {
		return false, err
	}
	ino, _, err := c.eng.Lookup(ctx, parent, name)
	if err != nil {
		return false, err
	}
	return c.intoTrash(ctx, func(hour Ino) error {
		_, _, _, err := c.rename(ctx, cred, parent, name, hour, TrashEntryName(parent, ino, name), RenameNoReplace)
		return err
	})
}
