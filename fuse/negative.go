package fuse

import (
	"syscall"

	gofuse "github.com/hanwen/go-fuse/v2/fuse"
)

// negativeEntry answers a LOOKUP of a missing name. With entry caching
// on, it is an entry of node 0 valid for meta.Client's MissingEntryTTL,
// as long as the client keeps the name as missing: the kernel does not
// ask again before a stat or an open(O_CREAT) of it (an exclusive create
// and a mkdir ask again, and the client answers). A name this mount
// creates replaces the kernel's negative entry at once; one another mount
// creates becomes visible here within that time, as a change of an
// existing name does within the entry cache durations. With entry
// caching off it is ENOENT, which the kernel does not keep. Either way
// the metrics count the ENOENT the application sees, as the access log
// shows it.
func (fs *FS) negativeEntry(out *gofuse.EntryOut) gofuse.Status {
	fs.v.ObserveError("lookup", syscall.ENOENT)
	ttl := fs.v.Client().MissingEntryTTL()
	if ttl <= 0 {
		return gofuse.Status(syscall.ENOENT)
	}
	*out = gofuse.EntryOut{}
	out.SetEntryTimeout(ttl)
	return gofuse.OK
}
