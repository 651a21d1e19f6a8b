package meta

// The argument checks of every Engine call, each with the errno a local
// Linux file system returns for that argument (checked against ext4 and
// tmpfs), in the order Linux checks them. Checked applies them in front
// of every engine, so an engine never sees an argument refused here and
// every engine refuses it the same way; engines and their server-side
// ports do not repeat them.

// MaxLength is the longest a file may be: 2^53 bytes, the largest length
// every engine stores exactly (Redis's Lua computes in doubles).
const MaxLength = 1 << 53

// CheckName rejects names a directory entry cannot have: "", ".", ".."
// and names holding '/' or NUL are EINVAL, names over MaxName bytes
// ENAMETOOLONG.
func CheckName(name string) error {
	if name == "" || name == "." || name == ".." {
		return ErrInvalid
	}
	if len(name) > MaxName {
		return ErrNameTooLong
	}
	for i := 0; i < len(name); i++ {
		if name[i] == '/' || name[i] == 0 {
			return ErrInvalid
		}
	}
	return nil
}

// CheckMknod checks a new inode's arguments: a symlink's target (empty is
// ENOENT, over MaxSymlink bytes ENAMETOOLONG, as symlink(2) copies it
// first), the name, then the type and the inode number, which must be one
// NextInodes can hand out: 0 and RootIno are EINVAL.
func CheckMknod(name string, ino Ino, typ FileType, target string) error {
	if typ == TypeSymlink {
		if target == "" {
			return ErrNotFound
		}
		if len(target) > MaxSymlink {
			return ErrNameTooLong
		}
	}
	if err := CheckName(name); err != nil {
		return err
	}
	if typ < TypeFile || typ > TypeSocket || ino <= RootIno {
		return ErrInvalid
	}
	return nil
}

// CheckRename checks the flags (unknown bits, RenameExchange with
// RenameNoReplace, and RenameEmptyDir without RenameNoReplace are EINVAL)
// before both names.
func CheckRename(srcName, dstName string, flags uint32) error {
	if flags&^(RenameNoReplace|RenameExchange|RenameEmptyDir) != 0 ||
		flags&(RenameNoReplace|RenameExchange) == RenameNoReplace|RenameExchange ||
		(flags&RenameEmptyDir != 0 && flags&RenameNoReplace == 0) {
		return ErrInvalid
	}
	if err := CheckName(srcName); err != nil {
		return err
	}
	return CheckName(dstName)
}

// CheckXattrName rejects an extended attribute name that is empty or over
// MaxXattrName bytes: ERANGE, as getxattr(2) and its siblings do.
func CheckXattrName(name string) error {
	if name == "" || len(name) > MaxXattrName {
		return ErrRange
	}
	return nil
}

// CheckSetXattr checks setxattr(2)'s arguments in Linux's order: unknown
// flags are EINVAL, a bad name ERANGE, a value over MaxXattrValue bytes
// E2BIG. XattrCreate and XattrReplace together are not refused: as on
// Linux, the call then fails with ErrExists when the attribute exists and
// ErrNoAttr when it does not, which only the engine can tell.
func CheckSetXattr(name string, value []byte, flags uint32) error {
	if flags&^(XattrCreate|XattrReplace) != 0 {
		return ErrInvalid
	}
	if err := CheckXattrName(name); err != nil {
		return err
	}
	if len(value) > MaxXattrValue {
		return ErrValueTooBig
	}
	return nil
}

// CheckTruncate refuses a length over MaxLength: EFBIG.
func CheckTruncate(length uint64) error {
	if length > MaxLength {
		return ErrTooBig
	}
	return nil
}

// CheckFallocate checks fallocate(2)'s arguments in Linux's order: an
// empty range (or one that would be negative as an off_t) is EINVAL;
// unknown modes, a hole punched without FallocKeepSize and a hole punched
// together with FallocZeroRange are EOPNOTSUPP; a range ending past
// MaxLength is EFBIG.
func CheckFallocate(mode uint8, off, size uint64) error {
	switch {
	case size == 0 || int64(off) < 0 || int64(size) < 0:
		return ErrInvalid
	case mode&^(FallocKeepSize|FallocPunchHole|FallocZeroRange) != 0:
		return ErrNotSupported
	case mode&FallocPunchHole != 0 && (mode&FallocKeepSize == 0 || mode&FallocZeroRange != 0):
		return ErrNotSupported
	case off+size > MaxLength:
		return ErrTooBig
	}
	return nil
}

// CheckFlock refuses a lock type other than LockRead, LockWrite and
// LockUnlock: EINVAL.
func CheckFlock(typ uint32) error {
	if typ != LockRead && typ != LockWrite && typ != LockUnlock {
		return ErrInvalid
	}
	return nil
}

// CheckSetLk refuses a byte-range lock of an unknown type or whose range
// ends before it starts: EINVAL.
func CheckSetLk(l Lock) error {
	if err := CheckFlock(l.Type); err != nil {
		return err
	}
	if l.Start > l.End {
		return ErrInvalid
	}
	return nil
}

// CheckGetLk is CheckSetLk, and also refuses LockUnlock, as F_GETLK does.
func CheckGetLk(l Lock) error {
	if l.Type == LockUnlock {
		return ErrInvalid
	}
	return CheckSetLk(l)
}
