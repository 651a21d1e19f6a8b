package meta

// Access masks, as in access(2).
const (
	MayExec  = 1
	MayWrite = 2
	MayRead  = 4
)

// Access reports whether cred may access an inode with attributes a in the
// way mask asks: nil, or ErrAccess. Root passes, except that it may execute
// only what somebody may execute.
func Access(a *Attr, cred Cred, mask uint32) error {
	if mask == 0 {
		return nil
	}
	if cred.Uid == 0 {
		if mask&MayExec != 0 && a.Type != TypeDirectory && a.Mode&0111 == 0 {
			return ErrAccess
		}
		return nil
	}
	var bits uint32
	switch {
	case cred.Uid == a.Uid:
		bits = uint32(a.Mode>>6) & 7
	case cred.InGroup(a.Gid):
		bits = uint32(a.Mode>>3) & 7
	default:
		bits = uint32(a.Mode) & 7
	}
	if bits&mask != mask {
		return ErrAccess
	}
	return nil
}

// MayDelete checks that cred may remove or replace the entry for victim in
// directory dir: write and search permission on dir, and, when dir is
// sticky, ownership of dir or victim.
func MayDelete(dir, victim *Attr, cred Cred) error {
	if err := Access(dir, cred, MayWrite|MayExec); err != nil {
		return err
	}
	if dir.Mode&01000 != 0 && cred.Uid != 0 && cred.Uid != dir.Uid && cred.Uid != victim.Uid {
		return ErrNotPermitted
	}
	return nil
}

// InitAttr returns the attributes of a new inode created by cred in
// directory parent, as Linux's inode_init_owner does: the owner is the
// caller; the group is the caller's, or the parent's when the parent is
// setgid, in which case a new directory is setgid too; a non-directory that
// asks for setgid on a group the caller is not in loses it. now is in
// nanoseconds.
func InitAttr(parent *Attr, cred Cred, typ FileType, mode uint16, rdev uint32, now int64) Attr {
	a := Attr{
		Type:  typ,
		Mode:  mode & 07777,
		Uid:   cred.Uid,
		Gid:   cred.Gid,
		Rdev:  rdev,
		Nlink: 1,
		Atime: now, Mtime: now, Ctime: now,
	}
	if parent.Mode&02000 != 0 {
		a.Gid = parent.Gid
		if typ == TypeDirectory {
			a.Mode |= 02000
		} else if a.Mode&02010 == 02010 && cred.Uid != 0 && !cred.InGroup(a.Gid) {
			a.Mode &^= 02000
		}
	}
	if typ == TypeDirectory {
		a.Nlink = 2
		a.Length = 4096
	}
	return a
}

// ApplySetAttr checks that cred may make the change set to attributes a and
// applies it, with the rules described at Engine.SetAttr. now is in
// nanoseconds; the caller stores the result.
func ApplySetAttr(a *Attr, cred Cred, set SetAttr, now int64) error {
	root := cred.Uid == 0
	owner := root || cred.Uid == a.Uid
	if set.Uid != nil && *set.Uid != a.Uid && !root {
		return ErrNotPermitted
	}
	if set.Gid != nil && *set.Gid != a.Gid && !root && !(cred.Uid == a.Uid && cred.InGroup(*set.Gid)) {
		return ErrNotPermitted
	}
	if set.Mode != nil && !owner {
		return ErrNotPermitted
	}
	if (set.Atime != nil || set.Mtime != nil) && !owner {
		return ErrNotPermitted
	}
	if (set.AtimeNow || set.MtimeNow) && !owner {
		if err := Access(a, cred, MayWrite); err != nil {
			return err
		}
	}
	changed := false
	if set.ClearSetid {
		if m := ModeAfterWrite(a, cred); m != a.Mode {
			a.Mode = m
			changed = true
		}
	}
	if set.Mode != nil {
		m := *set.Mode & 07777
		if !root && m&02000 != 0 && !cred.InGroup(a.Gid) {
			gid := a.Gid
			if set.Gid != nil {
				gid = *set.Gid
			}
			if !cred.InGroup(gid) {
				m &^= 02000
			}
		}
		a.Mode = m
		changed = true
	}
	if set.Uid != nil || set.Gid != nil {
		if set.Mode == nil {
			a.Mode = ModeAfterChown(a, cred)
		}
		if set.Uid != nil {
			a.Uid = *set.Uid
		}
		if set.Gid != nil {
			a.Gid = *set.Gid
		}
		changed = true
	}
	if set.Atime != nil {
		a.Atime = *set.Atime
		changed = true
	}
	if set.AtimeNow {
		a.Atime = now
		changed = true
	}
	if set.Mtime != nil {
		a.Mtime = *set.Mtime
		changed = true
	}
	if set.MtimeNow {
		a.Mtime = now
		changed = true
	}
	if changed {
		a.Ctime = now
	}
	return nil
}
