package sql

import (
	"context"
	dbsql "database/sql"
	"fmt"

	"cairn/meta"
)

var _ meta.OrphanLister = (*Engine)(nil)

// Orphans lists the orphans of every session, see meta.OrphanLister.
func (e *Engine) Orphans(ctx context.Context) ([]meta.Ino, error) {
	var inos []meta.Ino
	err := e.read(ctx, func(c *conn) error {
		inos = inos[:0]
		return c.each("SELECT ino FROM cairn_orphan", func(rows *dbsql.Rows) error {
			var ino int64
			if err := rows.Scan(&ino); err != nil {
				return err
			}
			inos = append(inos, meta.Ino(ino))
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("list orphans: %w", err)
	}
	return inos, nil
}
