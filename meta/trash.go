package meta

// The trash keeps what is deleted for Format.TrashDays days, in a
// directory ".trash" at the volume's root, so that 'cairn restore' can put
// it back. Every engine gets it with no engine code: the Client turns the
// deletions into the engine operations it already has.
//
//   - An unlink of a non-directory with one link is ONE atomic Rename
//     (RenameNoReplace) into the folder of the current hour. A file with
//     more links is unlinked as usual: its data stays reachable anyway.
//   - A rename that replaces a non-directory with one link first Links the
//     victim into the trash, then renames; the destination name never
//     disappears. If the rename fails, the trash link is removed again.
//   - An rmdir moves the empty directory into the trash with ONE atomic
//     Rename (RenameNoReplace|RenameEmptyDir: an entry made in it
//     meanwhile makes it ENOTEMPTY), so that restore can rebuild missing
//     parents by following the inode chain through trashed directories.
//     'cairn rmr' moves a whole tree with one Rename.
//
// Names. The trash is inode TrashIno, mode 0700, owned by root: nobody but
// root walks into it. Its hour folders are named "YYYY-MM-DD-HH" (UTC),
// numbered TrashIno+1+hours since the epoch, mode 01733 owned by root: any
// user's deletion may rename into them (engines check write permission on
// the destination with the caller's Cred, and the caller's rights on the
// source side in the same transaction, so the trash needs no check of its
// own), the sticky bit keeps users from renaming each other's entries
// out, and nobody else may list them. Because every trash directory's
// number is fixed, two clients creating the same hour folder at once make
// the same inode, and one of them gets ErrExists, which is fine. An entry
// is named "<parent-ino>-<ino>-<name>", cut to MaxName bytes: the parent
// and the name say where it came from, the inode number finds trashed
// parents.
//
// Writes. The Client refuses with ErrNotPermitted every create, link and
// rename into a trash directory (the hour folders and the trashed
// directories under them), and every rename out of it other than
// restore's; root may read and remove. A file already in the trash is
// not made read-only: root, who alone can reach it, could still write it.
//
// What is not kept: a truncate, an overwrite (a write over existing bytes,
// an O_TRUNC open) and a fallocate punch free data at once; the trash only
// keeps names that are removed.
//
// Expiry. An hour folder expires TrashDays days after its hour ended; a
// background job of one client at a time (the lowest live session, see
// IsLeader) removes expired folders with many workers in parallel.
// TrashDays 0 turns the trash off and makes every folder expired.

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

const (
	// TrashName is the trash directory's name in the root.
	TrashName = ".trash"
	// TrashIno is the trash directory's inode number. Hour folders follow
	// it; the range stays below 2^45 so that every engine (Lua's doubles
	// included) holds the numbers exactly, and far above what NextInodes
	// hands out.
	TrashIno Ino = 1 << 44
	// trashSpan is how many numbers the trash reserves after TrashIno.
	trashSpan = 1 << 32
	// TrashDirMode and TrashHourMode are the trash directories' modes.
	TrashDirMode  = 0700
	TrashHourMode = 01733

	trashHourLayout = "2006-01-02-15"
)

// IsTrashIno reports whether ino is the trash or one of its hour folders.
func IsTrashIno(ino Ino) bool {
	return ino >= TrashIno && ino < TrashIno+trashSpan
}

// TrashHour is the hour folder that holds what is deleted at t: its name
// and inode number.
func TrashHour(t time.Time) (string, Ino) {
	h := t.UTC().Truncate(time.Hour)
	return h.Format(trashHourLayout), TrashIno + 1 + Ino(h.Unix()/3600)
}

// ParseTrashHour reads an hour folder's name back into its hour; ok is
// false for a name that is not one.
func ParseTrashHour(name string) (time.Time, bool) {
	t, err := time.Parse(trashHourLayout, name)
	return t, err == nil
}

// TrashExpired reports whether the hour folder of hour has expired at now
// for a volume keeping its trash days days.
func TrashExpired(hour time.Time, days int, now time.Time) bool {
	if days <= 0 {
		return true
	}
	return !now.Before(hour.Add(time.Hour).Add(time.Duration(days) * 24 * time.Hour))
}

// TrashEntryName is the name under which ino, deleted as parent/name, is
// kept in the trash.
func TrashEntryName(parent, ino Ino, name string) string {
	s := fmt.Sprintf("%d-%d-%s", parent, ino, name)
	if len(s) > MaxName {
		s = s[:MaxName]
	}
	return s
}

// ParseTrashEntry reads a trash entry's name back: where it came from and
// its inode. A name cut to MaxName gives back the cut name. ok is false
// for a name that is not a trash entry.
func ParseTrashEntry(entry string) (parent, ino Ino, name string, ok bool) {
	p, rest, found := strings.Cut(entry, "-")
	if !found {
		return 0, 0, "", false
	}
	i, name, found := strings.Cut(rest, "-")
	if !found || name == "" {
		return 0, 0, "", false
	}
	pn, err1 := strconv.ParseUint(p, 10, 64)
	in, err2 := strconv.ParseUint(i, 10, 64)
	if err1 != nil || err2 != nil || pn == 0 || in == 0 {
		return 0, 0, "", false
	}
	return Ino(pn), Ino(in), name, true
}
