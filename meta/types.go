package meta

import "time"

// Ino is an inode number. RootIno is the root directory of every volume.
type Ino uint64

const (
	// RootIno is the root directory, created by Engine.Init.
	RootIno Ino = 1
	// ChunkSize is the span of a file covered by one chunk's slice list.
	ChunkSize = 64 << 20
	// MaxName is the longest name a directory entry may have, in bytes.
	MaxName = 255
	// MaxSymlink is the longest target a symbolic link may have, in bytes.
	MaxSymlink = 4096
	// MaxXattrName and MaxXattrValue follow Linux's limits.
	MaxXattrName  = 255
	MaxXattrValue = 65536
)

// FileType is the kind of an inode.
type FileType uint8

const (
	TypeFile FileType = iota + 1
	TypeDirectory
	TypeSymlink
	TypeFIFO
	TypeBlockDev
	TypeCharDev
	TypeSocket
)

// Attr is an inode's attributes as stored by an engine.
type Attr struct {
	Type  FileType
	Mode  uint16 // permission bits plus setuid, setgid and sticky (07777)
	Uid   uint32
	Gid   uint32
	Rdev  uint32 // device number of block and character devices
	Nlink uint32
	// Length is the file size; for a symlink the target's length; for a
	// directory a nominal 4096.
	Length uint64
	Atime  int64 // nanoseconds since the Unix epoch
	Mtime  int64
	Ctime  int64
	// Parent is the containing directory of a directory (for "..", rename
	// loop checks). Files may have many parents through hard links; for them
	// it is 0.
	Parent Ino
}

// IsDir reports whether the inode is a directory.
func (a *Attr) IsDir() bool { return a.Type == TypeDirectory }

// Entry is one name in a directory.
type Entry struct {
	Name string
	Ino  Ino
	Type FileType
	// Attr is filled by Readdir when asked for attributes (readdirplus).
	Attr *Attr
}

// Cred is the identity of the process on whose behalf an operation runs.
type Cred struct {
	Uid  uint32
	Gid  uint32   // primary group
	Gids []uint32 // supplementary groups, may include Gid
}

// RootCred is the superuser.
var RootCred = Cred{}

// InGroup reports whether the caller is a member of gid.
func (c Cred) InGroup(gid uint32) bool {
	if c.Gid == gid {
		return true
	}
	for _, g := range c.Gids {
		if g == gid {
			return true
		}
	}
	return false
}

// Slice is one record of a chunk's slice list: Len bytes, taken from offset
// Off of slice ID's data, placed at Pos within the chunk. Later records in a
// list cover earlier ones where they overlap. ID 0 is a hole that reads as
// zeros (punch hole, truncate). Size is the whole length of slice ID's data,
// which is what its blocks are cut from.
type Slice struct {
	Pos  uint32
	ID   uint64
	Size uint32
	Off  uint32
	Len  uint32
}

// DeadSlice is a slice no file references any longer; its blocks may be
// removed from the object store.
type DeadSlice struct {
	ID   uint64
	Size uint32
}

// Usage is what a volume holds.
type Usage struct {
	Space  uint64 // bytes, each file's length rounded up to 4 KiB
	Inodes uint64
}

// SessionInfo describes a mounted client.
type SessionInfo struct {
	ID         uint64
	Hostname   string
	MountPoint string
	PID        int
	Version    string
	Started    time.Time
	Heartbeat  time.Time
}

// SetAttr says which attributes Engine.SetAttr changes.
type SetAttr struct {
	Mode     *uint16
	Uid      *uint32
	Gid      *uint32
	Atime    *int64 // nanoseconds; see AtimeNow
	Mtime    *int64
	AtimeNow bool // set atime to the engine's clock (UTIME_NOW)
	MtimeNow bool
	// ClearSetid clears setuid and setgid as a write or truncate by the
	// caller does (ModeAfterWrite). It needs no permission of its own:
	// the caller asks it for a write or truncate already allowed.
	ClearSetid bool
}

// Rename flags: RenameNoReplace and RenameExchange as in renameat2(2),
// and RenameEmptyDir, cairn's own, which the kernel never sends (the FUSE
// layer refuses every flag but renameat2's two).
const (
	RenameNoReplace uint32 = 1 << 0
	RenameExchange  uint32 = 1 << 1
	// RenameEmptyDir moves the source only if it is an empty directory,
	// checked in the rename's own transaction after every check the
	// rename makes without it: ErrNotDir when the source is not a
	// directory, ErrNotEmpty when it holds an entry, and nothing changes.
	// It is how an rmdir moves a directory into the trash atomically
	// (Client.Rmdir): an entry another client adds to the directory in
	// the meantime makes the move fail rather than go with it. It is
	// valid only with RenameNoReplace (CheckRename refuses it otherwise,
	// and with RenameExchange, with ErrInvalid), so a rename with it
	// never replaces anything.
	RenameEmptyDir uint32 = 1 << 16
)

// Xattr flags, as in setxattr(2).
const (
	XattrCreate  uint32 = 1
	XattrReplace uint32 = 2
)

// Fallocate modes, as in fallocate(2).
const (
	FallocKeepSize  uint8 = 0x01
	FallocPunchHole uint8 = 0x02
	FallocZeroRange uint8 = 0x10
)

// Lock types for Flock and SetLk, as in fcntl(2).
const (
	LockRead   uint32 = 0 // F_RDLCK
	LockWrite  uint32 = 1 // F_WRLCK
	LockUnlock uint32 = 2 // F_UNLCK
)

// Lock is a POSIX byte-range lock: [Start, End] inclusive; End ^uint64(0)
// means to the end of the file.
type Lock struct {
	Type  uint32
	Start uint64
	End   uint64
	Pid   uint32
}

// LockOwner identifies who holds a lock: the session and the kernel's
// lock owner within it.
type LockOwner struct {
	Session uint64
	Owner   uint64
}
