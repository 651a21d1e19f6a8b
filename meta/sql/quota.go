package sql

import (
	"context"
	"fmt"
	"slices"

	"cairn/meta"
)

var _ meta.QuotaStore = (*Engine)(nil)

// quotaTable holds directory quotas (meta.QuotaStore).
var quotaTable = table{name: "cairn_quota", columns: "ino {INT} NOT NULL PRIMARY KEY, max_space {INT} NOT NULL, " +
	"max_inodes {INT} NOT NULL, space {INT} NOT NULL, inodes {INT} NOT NULL"}

// SetQuota creates or replaces a quota, see meta.QuotaStore.
func (e *Engine) SetQuota(ctx context.Context, dir meta.Ino, q meta.Quota) error {
	if err := e.ensureDirStatTable(ctx); err != nil {
		return err
	}
	err := e.txn(ctx, func(c *conn) error {
		_, err := c.exec(e.d.upsert("cairn_quota", []string{"ino", "max_space", "max_inodes", "space", "inodes"}, 1),
			int64(dir), q.MaxSpace, q.MaxInodes, q.Space, q.Inodes)
		return err
	})
	if err != nil {
		return fmt.Errorf("set the quota of directory %d: %w", dir, err)
	}
	return nil
}

// DeleteQuota removes a quota, see meta.QuotaStore.
func (e *Engine) DeleteQuota(ctx context.Context, dir meta.Ino) error {
	if err := e.ensureDirStatTable(ctx); err != nil {
		return err
	}
	err := e.txn(ctx, func(c *conn) error {
		n, err := c.execCount("DELETE FROM cairn_quota WHERE ino = ?", int64(dir))
		if err == nil && n == 0 {
			return meta.ErrNotFound
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("delete the quota of directory %d: %w", dir, err)
	}
	return nil
}

// Quotas lists every quota, see meta.QuotaStore. On a volume formatted
// before quotas existed it creates nothing (status reads it): no table,
// no quota.
func (e *Engine) Quotas(ctx context.Context) (map[meta.Ino]meta.Quota, error) {
	out := map[meta.Ino]meta.Quota{}
	err := e.read(ctx, func(c *conn) error {
		clear(out)
		if !e.dirStatsTable.Load() {
			exists, err := c.tableExists(quotaTable.name)
			if err != nil || !exists {
				return err
			}
		}
		rows, err := c.query("SELECT ino, max_space, max_inodes, space, inodes FROM cairn_quota")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var ino int64
			var q meta.Quota
			if err := rows.Scan(&ino, &q.MaxSpace, &q.MaxInodes, &q.Space, &q.Inodes); err != nil {
				return err
			}
			out[meta.Ino(ino)] = q
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("list quotas: %w", err)
	}
	return out, nil
}

// AddQuotaUsage adds to the quotas' usage in one transaction, in inode
// order, see meta.QuotaStore. A mark's record is a row of cairn_dirstat,
// as AddDirStats's (claimMark).
func (e *Engine) AddQuotaUsage(ctx context.Context, deltas map[meta.Ino]meta.DirStat, mark meta.FlushMark) error {
	if err := e.ensureDirStatTable(ctx); err != nil {
		return err
	}
	dirs := make([]meta.Ino, 0, len(deltas))
	for dir := range deltas {
		dirs = append(dirs, dir)
	}
	slices.Sort(dirs)
	err := e.txn(ctx, func(c *conn) error {
		if apply, err := c.claimMark(mark); err != nil || !apply {
			return err
		}
		for _, dir := range dirs {
			d := deltas[dir]
			if _, err := c.exec("UPDATE cairn_quota SET space = space + ?, inodes = inodes + ? WHERE ino = ?", d.Space, d.Inodes, int64(dir)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("add quota usage: %w", err)
	}
	return nil
}
