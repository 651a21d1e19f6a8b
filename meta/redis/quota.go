package redis

import (
	"context"
	"fmt"
	"strconv"

	goredis "github.com/redis/go-redis/v9"

	"cairn/meta"
)

var _ meta.QuotaStore = (*Engine)(nil)

// Quotas (meta.QuotaStore) are four hashes keyed by the directory's
// inode number: <prefix>:quota:<field> for max_space, max_inodes, space
// and inodes. A usage flush is one script of HINCRBYs, the one of the
// statistics (addStats), whose FlushMark's record is kept with theirs: a
// quota deleted meanwhile gets usage fields back, which Quotas ignores
// (it lists the directories that have a max_space field) and SetQuota
// overwrites.
var quotaFields = []string{"max_space", "max_inodes", "space", "inodes"}

func (e *Engine) quotaKey(field string) string { return e.prefix + ":quota:" + field }

// SetQuota creates or replaces a quota, see meta.QuotaStore.
func (e *Engine) SetQuota(ctx context.Context, dir meta.Ino, q meta.Quota) error {
	id := strconv.FormatUint(uint64(dir), 10)
	values := []int64{q.MaxSpace, q.MaxInodes, q.Space, q.Inodes}
	_, err := e.rdb.TxPipelined(ctx, func(p goredis.Pipeliner) error {
		for i, f := range quotaFields {
			p.HSet(ctx, e.quotaKey(f), id, values[i])
		}
		return nil
	})
	if err != nil {
		return e.fail("set a quota", err)
	}
	return nil
}

// DeleteQuota removes a quota, see meta.QuotaStore.
func (e *Engine) DeleteQuota(ctx context.Context, dir meta.Ino) error {
	id := strconv.FormatUint(uint64(dir), 10)
	var first *goredis.IntCmd
	_, err := e.rdb.TxPipelined(ctx, func(p goredis.Pipeliner) error {
		for i, f := range quotaFields {
			cmd := p.HDel(ctx, e.quotaKey(f), id)
			if i == 0 {
				first = cmd
			}
		}
		return nil
	})
	if err != nil {
		return e.fail("delete a quota", err)
	}
	if first.Val() == 0 {
		return fmt.Errorf("directory %d has no quota: %w", dir, meta.ErrNotFound)
	}
	return nil
}

// Quotas lists every quota, see meta.QuotaStore.
func (e *Engine) Quotas(ctx context.Context) (map[meta.Ino]meta.Quota, error) {
	cmds := make([]*goredis.MapStringStringCmd, len(quotaFields))
	_, err := e.rdb.Pipelined(ctx, func(p goredis.Pipeliner) error {
		for i, f := range quotaFields {
			cmds[i] = p.HGetAll(ctx, e.quotaKey(f))
		}
		return nil
	})
	if err != nil {
		return nil, e.fail("list quotas", err)
	}
	out := map[meta.Ino]meta.Quota{}
	for id := range cmds[0].Val() {
		ino, err := strconv.ParseUint(id, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("corrupt quota field %q: %w", id, meta.ErrIO)
		}
		var v [4]int64
		for i := range quotaFields {
			s, ok := cmds[i].Val()[id]
			if !ok {
				continue
			}
			if v[i], err = strconv.ParseInt(s, 10, 64); err != nil {
				return nil, fmt.Errorf("corrupt quota of directory %d: %w", ino, meta.ErrIO)
			}
		}
		out[meta.Ino(ino)] = meta.Quota{MaxSpace: v[0], MaxInodes: v[1], Space: v[2], Inodes: v[3]}
	}
	return out, nil
}

// AddQuotaUsage adds to the quotas' usage in one script, see
// meta.QuotaStore.
func (e *Engine) AddQuotaUsage(ctx context.Context, deltas map[meta.Ino]meta.DirStat, mark meta.FlushMark) error {
	if err := e.addStats(ctx, "quota", deltas, nil, mark); err != nil {
		return fmt.Errorf("add quota usage: %w", err)
	}
	return nil
}
