package meta

import "context"

// OrphanLister is implemented by engines that can list the inodes
// sessions keep after their last link went (unlinked while open, see
// Engine.Unlink). Dumper leaves those out, yet their data is in use: 'cairn
// gc' reads their chunks so that it never takes their objects for leaks.
// Orphans may run while clients work; an inode it lists may be released
// at any moment after.
type OrphanLister interface {
	Orphans(ctx context.Context) ([]Ino, error)
}
