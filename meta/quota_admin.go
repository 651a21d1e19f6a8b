package meta

import (
	"context"
	"fmt"
)

// quotaStores finds the engine's statistics and quota stores, or says in
// one line that it has none.
func quotaStores(e Engine) (DirStatStore, QuotaStore, error) {
	stats, ok := Capability[DirStatStore](e)
	quotas, ok2 := Capability[QuotaStore](e)
	if !ok || !ok2 {
		return nil, nil, fmt.Errorf("the %s engine keeps no directory quotas: %w", e.Name(), ErrNotSupported)
	}
	return stats, quotas, nil
}

// TreeUsage counts the space and inodes under directory dir (dir itself
// not included) from its entries.
func TreeUsage(ctx context.Context, e Engine, dir Ino) (DirStat, error) {
	tree, err := CountTree(ctx, e, dir)
	if err != nil {
		return DirStat{}, err
	}
	return tree.Total(), nil
}

// SetQuota sets the limits of directory dir's quota (zero: no limit).
// A new quota starts with the tree's usage counted in full; an existing
// one keeps its usage. ErrNotDir when dir is not a directory.
func SetQuota(ctx context.Context, e Engine, dir Ino, maxSpace, maxInodes int64) (Quota, error) {
	_, store, err := quotaStores(e)
	if err != nil {
		return Quota{}, err
	}
	a, err := e.GetAttr(ctx, dir)
	if err != nil {
		return Quota{}, err
	}
	if !a.IsDir() {
		return Quota{}, fmt.Errorf("inode %d is not a directory: %w", dir, ErrNotDir)
	}
	all, err := store.Quotas(ctx)
	if err != nil {
		return Quota{}, err
	}
	q, ok := all[dir]
	if !ok {
		used, err := TreeUsage(ctx, e, dir)
		if err != nil {
			return Quota{}, err
		}
		q.Space, q.Inodes = used.Space, used.Inodes
	}
	q.MaxSpace, q.MaxInodes = maxSpace, maxInodes
	return q, store.SetQuota(ctx, dir, q)
}

// GetQuota returns directory dir's quota; ErrNotFound when it has none.
func GetQuota(ctx context.Context, e Engine, dir Ino) (Quota, error) {
	all, err := ListQuotas(ctx, e)
	if err != nil {
		return Quota{}, err
	}
	q, ok := all[dir]
	if !ok {
		return Quota{}, fmt.Errorf("directory %d has no quota: %w", dir, ErrNotFound)
	}
	return q, nil
}

// ListQuotas returns every quota.
func ListQuotas(ctx context.Context, e Engine) (map[Ino]Quota, error) {
	_, store, err := quotaStores(e)
	if err != nil {
		return nil, err
	}
	return store.Quotas(ctx)
}

// DeleteQuota removes directory dir's quota; ErrNotFound when it has none.
func DeleteQuota(ctx context.Context, e Engine, dir Ino) error {
	_, store, err := quotaStores(e)
	if err != nil {
		return err
	}
	return store.DeleteQuota(ctx, dir)
}

// CheckQuota counts the tree under directory dir in full and returns the
// quota as recorded and the usage counted. With repair it writes what
// the count found wrong: the usage of the quota and of the quotas nested
// in its tree, and every directory's statistics (writeCount).
func CheckQuota(ctx context.Context, e Engine, dir Ino, repair bool) (recorded Quota, counted DirStat, err error) {
	if recorded, err = GetQuota(ctx, e, dir); err != nil {
		return Quota{}, DirStat{}, err
	}
	tree, err := CountTree(ctx, e, dir)
	if err != nil {
		return Quota{}, DirStat{}, err
	}
	if repair {
		if _, err := writeCount(ctx, e, tree); err != nil {
			return Quota{}, DirStat{}, err
		}
	}
	return recorded, tree.Total(), nil
}

// SetQuota sets a quota as SetQuota does, after writing this client's
// unflushed changes, and makes the client read the quotas again.
func (c *Client) SetQuota(ctx context.Context, dir Ino, maxSpace, maxInodes int64) (Quota, error) {
	if err := c.FlushDirStats(ctx); err != nil {
		return Quota{}, err
	}
	defer c.forgetQuotas()
	return SetQuota(ctx, c.eng, dir, maxSpace, maxInodes)
}
