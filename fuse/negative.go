package fuse

import (
	"syscall"

	gofuse "github.com/hanwen/go-fuse/v2/fuse"

	"cairn/meta"
)

// negativeEntry answers a LOOKUP of parent/name, which is missing. With
// entry caching on, it is an entry of node 0 valid for as long as
// meta.Client keeps the name as missing (MissingFor): the kernel does not
// ask again before a stat or an open(O_CREAT) of it (an exclusive create
// and a mkdir ask again, and the client answers). A name this mount
// creates replaces the kernel's negative entry at once; one another mount
// creates becomes visible here within the client's MissingEntryTTL, as a
// change of an existing name does within the entry cache durations. With
// entry caching off it is ENOENT, which the kernel does not keep. Either
// way the metrics count the ENOENT the application sees, as the access
// log shows it.
func (fs *FS) negativeEntry(parent meta.Ino, name string, out *gofuse.EntryOut) gofuse.Status {
	fs.v.ObserveError("lookup", syscall.ENOENT)
	ttl := fs.v.Client().MissingFor(parent, name)
	if ttl <= 0 {
		return gofuse.Status(syscall.ENOENT)
	}
	*out = gofuse.EntryOut{}
	out.SetEntryTimeout(ttl)
	return gofuse.OK
}
