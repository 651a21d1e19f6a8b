package dump

import (
	"fmt"

	"cairn/meta"
)

// typeNames are the JSON form's names of meta.FileType, indexed by it.
var typeNames = [...]string{
	meta.TypeFile:      "file",
	meta.TypeDirectory: "dir",
	meta.TypeSymlink:   "symlink",
	meta.TypeFIFO:      "fifo",
	meta.TypeBlockDev:  "blockdev",
	meta.TypeCharDev:   "chardev",
	meta.TypeSocket:    "socket",
}

func typeName(t meta.FileType) string {
	if int(t) < len(typeNames) && typeNames[t] != "" {
		return typeNames[t]
	}
	return fmt.Sprintf("type%d", t)
}

func parseType(s []byte) (meta.FileType, error) {
	for t, name := range typeNames {
		if name != "" && name == string(s) {
			return meta.FileType(t), nil
		}
	}
	return 0, fmt.Errorf("unknown file type %q", s)
}

func validType(t meta.FileType) bool {
	return t >= meta.TypeFile && t <= meta.TypeSocket
}

// kindNames are the JSON form's names of meta.DumpKind, indexed by it.
var kindNames = [...]string{
	meta.DumpInode:     "inode",
	meta.DumpEntry:     "entry",
	meta.DumpSymlink:   "symlink",
	meta.DumpXattr:     "xattr",
	meta.DumpChunk:     "chunk",
	meta.DumpDeadSlice: "dead_slice",
	meta.DumpQuota:     "quota",
	meta.DumpDirStat:   "dir_stat",
}

func parseKind(s []byte) (meta.DumpKind, bool) {
	for k, name := range kindNames {
		if name != "" && name == string(s) {
			return meta.DumpKind(k), true
		}
	}
	return 0, false
}

// header is the JSON form of meta.DumpHeader plus the format version; the
// binary form carries it too.
type header struct {
	Version   int         `json:"cairn_dump"`
	Format    meta.Format `json:"format"`
	NextInode uint64      `json:"next_inode"`
	NextSlice uint64      `json:"next_slice"`
	Usage     usage       `json:"usage"`
}

type usage struct {
	Space  uint64 `json:"space"`
	Inodes uint64 `json:"inodes"`
}

func toHeader(h meta.DumpHeader) header {
	return header{Version: Version, Format: h.Format, NextInode: h.NextInode, NextSlice: h.NextSlice,
		Usage: usage{Space: h.Usage.Space, Inodes: h.Usage.Inodes}}
}

func (h header) meta() meta.DumpHeader {
	return meta.DumpHeader{Format: h.Format, NextInode: h.NextInode, NextSlice: h.NextSlice,
		Usage: meta.Usage{Space: h.Usage.Space, Inodes: h.Usage.Inodes}}
}
