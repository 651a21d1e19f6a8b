package redis

import (
	"context"
	"strconv"

	"cairn/meta"
)

var _ meta.OrphanLister = (*Engine)(nil)

// Orphans lists the orphans of every session, see meta.OrphanLister:
// each session keeps its own set.
func (e *Engine) Orphans(ctx context.Context) ([]meta.Ino, error) {
	sessions, err := e.ListSessions(ctx)
	if err != nil {
		return nil, err
	}
	var inos []meta.Ino
	for _, s := range sessions {
		members, err := e.rdb.SMembers(ctx, e.key("o", s.ID)).Result()
		if err != nil {
			return nil, e.fail("list orphans", err)
		}
		for _, m := range members {
			n, err := strconv.ParseUint(m, 10, 64)
			if err != nil {
				return nil, e.fail("list orphans", err)
			}
			inos = append(inos, meta.Ino(n))
		}
	}
	return inos, nil
}
