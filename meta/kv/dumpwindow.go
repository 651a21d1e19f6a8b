package kv

import "cairn/meta"

// inodeWindow is how many inode numbers a dump scans per range. etcd
// counts every key from a page's start to the range's end for each page
// it returns (its Range has no way to skip the count), so paging through
// the whole inode range costs time quadratic in the volume's size; ranges
// of inode numbers keep each count to the keys of a window.
const inodeWindow = 1024

// scanInodes calls fn for every inode key (attributes, entries, chunks,
// xattrs, symlinks, locks) in key order, a window of inode numbers at a
// time up to next, then whatever lies beyond next in one range.
func (k keys) scanInodes(tx Tx, next meta.Ino, fn func(KeyValue) error) error {
	lo := uint64(0)
	for ; lo < uint64(next); lo += inodeWindow {
		b, _ := k.inodeRange(meta.Ino(lo))
		end, _ := k.inodeRange(meta.Ino(lo + inodeWindow))
		if err := scanAll(tx, b, end, fn); err != nil {
			return err
		}
	}
	b, _ := k.inodeRange(meta.Ino(lo))
	return scanAll(tx, b, k.key(tagInode+1), fn)
}
