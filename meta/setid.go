package meta

// Setuid and setgid clearing. Linux takes these bits away from a file
// whose content or owner changes, so that nobody but the owner and root
// can turn a setuid or setgid program into something else that keeps the
// privilege (fs/attr.c setattr_should_drop_suidgid and
// setattr_should_drop_sgid, fs/open.c chown_common). cairn treats uid 0
// as holding CAP_FSETID, as it treats it as holding every capability
// elsewhere (Access, ApplySetAttr).
//
// Checked against Linux 6.18 on ext4, as uid 65534 without supplementary
// groups and as root:
//
//	write, truncate, ftruncate, open(O_TRUNC) by uid 65534:
//	  04777 -> 0777, 02777 -> 0777, 06777 -> 0777 whoever owns the file;
//	  02767 -> 0767 when the file's group is not 65534's,
//	  02767 -> 02767 when it is (setgid without group-exec is kept);
//	  a write of 0 bytes changes nothing; truncating an empty file, or to
//	  the same length, clears the bits as any truncate does.
//	the same by root: every bit stays.
//	chown by root (to other ids, to the same ids, or -1/-1):
//	  04777 -> 0777, 02777 -> 0777, 06777 -> 0777, 02767 -> 02767,
//	  06767 -> 02767.
//	chgrp by the owner (uid 65534) to its own group 65534:
//	  02767 -> 02767 when the file was already in group 65534,
//	  02767 -> 0767 when it was in group 0.
//	chown of a directory: 06777 stays.

// Mode bits that carry privilege or that clearing looks at.
const (
	ModeSetuid    uint16 = 04000
	ModeSetgid    uint16 = 02000
	modeGroupExec uint16 = 00010
)

// ModeAfterWrite returns the mode a file with attributes a has after cred
// writes to it or truncates it (with any length, by truncate(2),
// ftruncate(2) or open(O_TRUNC)). A regular file written by anyone but
// root loses setuid, and setgid when it is group-executable or cred is not
// in its group; other files, and root's writes, keep every bit.
func ModeAfterWrite(a *Attr, cred Cred) uint16 {
	if a.Type != TypeFile || cred.Uid == 0 {
		return a.Mode
	}
	return a.Mode &^ (ModeSetuid | setgidToDrop(a, cred))
}

// ModeAfterChown returns the mode a file with attributes a (the owner and
// group before the change) has after cred changes its owner or group, even
// to the values it has: a non-directory loses setuid, root's chown
// included, and setgid as after a write, except that root keeps a setgid
// that is not group-executable. Directories keep every bit.
func ModeAfterChown(a *Attr, cred Cred) uint16 {
	if a.Type == TypeDirectory {
		return a.Mode
	}
	return a.Mode &^ (ModeSetuid | setgidToDrop(a, cred))
}

// setgidToDrop is ModeSetgid when a change by cred takes setgid away from
// a, else 0: a group-executable setgid always goes; one that is not (a
// mandatory-locking mark on old systems) goes when cred is neither root
// nor in the file's group.
func setgidToDrop(a *Attr, cred Cred) uint16 {
	switch {
	case a.Mode&ModeSetgid == 0:
		return 0
	case a.Mode&modeGroupExec != 0:
		return ModeSetgid
	case cred.Uid != 0 && !cred.InGroup(a.Gid):
		return ModeSetgid
	}
	return 0
}
