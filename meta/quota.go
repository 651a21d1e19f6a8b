package meta

import (
	"context"
	"syscall"
)

// Directory quotas: a limit on the space and inodes of a directory tree.
//
// A quota is a record on a directory: its limits and its usage (the
// space and inodes of the whole tree under it, the directory itself not
// included). The usage moves with the directory statistics: Client sums
// each change for every quota directory above the changed directory and
// writes the sums with the statistics, every DirStatsInterval
// (client_dirstats.go). Client refuses with ErrQuota a create, mknod,
// link, write past the end, fallocate, truncate up or rename into a tree
// that would take a quota above its limit, judged on the usage it read
// (refreshed every QuotaRefresh) plus its own unflushed sums. So one
// client stops exactly at a limit (a write buffered and not yet
// committed counts when vfs checks it at write(2)); several clients
// writing under one quota at once may overshoot it by what the others
// wrote within one refresh interval (QuotaRefresh plus DirStatsInterval).
// Quotas nest: every quota above a change must allow it.
//
// The directory parents a client follows to find the quotas above a
// directory are cached for good (a directory moved by another client is
// seen at the next QuotaRefresh, when the cache is emptied).
//
// A directory rename between two quota trees moves the whole subtree's
// usage, counted when the rename is asked for; a subtree deleted into the
// trash leaves its quota trees (the trash is outside them).

// ErrQuota is the errno of a change refused by a directory quota.
var ErrQuota error = Errno(syscall.EDQUOT)

// Quota is a directory's limits and usage. A zero limit is no limit.
type Quota struct {
	MaxSpace  int64 // bytes
	MaxInodes int64
	Space     int64 // bytes used under the directory
	Inodes    int64 // inodes under the directory
}

// QuotaStore is an optional interface of an engine (find it with
// Capability) that stores directory quotas. Client needs it and
// DirStatStore for quotas; without them the quota commands are refused
// with ErrNotSupported.
//
// All methods are safe for concurrent use; each is one transaction, but
// AddQuotaUsage may be several where DirStatStore's methods may.
type QuotaStore interface {
	// SetQuota creates or replaces dir's quota record, limits and usage.
	SetQuota(ctx context.Context, dir Ino, q Quota) error
	// DeleteQuota removes dir's quota; ErrNotFound when it has none.
	DeleteQuota(ctx context.Context, dir Ino) error
	// Quotas returns every quota.
	Quotas(ctx context.Context) (map[Ino]Quota, error)
	// AddQuotaUsage adds each delta to the usage of its quota directory;
	// a directory without a quota (deleted meanwhile) is skipped. A mark
	// makes it count once, as DirStatStore.AddDirStats does (its record
	// is kept with the directory statistics).
	AddQuotaUsage(ctx context.Context, deltas map[Ino]DirStat, mark FlushMark) error
}
