package fuse

import (
	"syscall"
	"time"

	gofuse "github.com/hanwen/go-fuse/v2/fuse"

	"cairn/meta"
)

// typeBits is the S_IF* part of a mode for each file type.
var typeBits = map[meta.FileType]uint32{
	meta.TypeFile:      syscall.S_IFREG,
	meta.TypeDirectory: syscall.S_IFDIR,
	meta.TypeSymlink:   syscall.S_IFLNK,
	meta.TypeFIFO:      syscall.S_IFIFO,
	meta.TypeBlockDev:  syscall.S_IFBLK,
	meta.TypeCharDev:   syscall.S_IFCHR,
	meta.TypeSocket:    syscall.S_IFSOCK,
}

// fileType is the cairn type of a mode's S_IF* bits (0 when unknown).
func fileType(mode uint32) meta.FileType {
	for t, b := range typeBits {
		if mode&syscall.S_IFMT == b {
			return t
		}
	}
	return 0
}

func fillAttr(out *gofuse.Attr, ino meta.Ino, a *meta.Attr) {
	out.Ino = uint64(ino)
	out.Size = a.Length
	out.Blocks = (a.Length + 511) / 512
	out.Blksize = 4096
	out.Mode = typeBits[a.Type] | uint32(a.Mode)
	out.Nlink = a.Nlink
	out.Owner = gofuse.Owner{Uid: a.Uid, Gid: a.Gid}
	out.Rdev = a.Rdev
	out.Atime, out.Atimensec = split(a.Atime)
	out.Mtime, out.Mtimensec = split(a.Mtime)
	out.Ctime, out.Ctimensec = split(a.Ctime)
}

func split(ns int64) (uint64, uint32) {
	sec, nsec := ns/1e9, ns%1e9
	if nsec < 0 {
		sec--
		nsec += 1e9
	}
	return uint64(sec), uint32(nsec)
}

func durationParts(d time.Duration) (uint64, uint32) {
	return uint64(d / time.Second), uint32(d % time.Second)
}
