package sql

import (
	"context"
	dbsql "database/sql"
	"errors"
	"fmt"
	"time"

	"cairn/meta"
)

var _ meta.FloorProber = (*Engine)(nil)

// floorTable is the scratch table of the floor probes: one row, which no
// operation of the volume reads or writes. It is created by the first
// probe that misses it, not by Init, so that volumes formatted earlier can
// be probed too.
const floorTable = "cairn_floor"

// ProbeWrite is one autocommit upsert of the scratch row: on PostgreSQL
// and MySQL/MariaDB one statement the server commits at its own durability
// setting; on SQLite one implicit transaction at the engine's synchronous
// setting, behind the same writer lock as every write transaction.
func (e *Engine) ProbeWrite(ctx context.Context) error {
	q := e.d.rebind(e.d.upsert(floorTable, []string{"id", "v"}, 1))
	write := func() error {
		if e.writeMu != nil {
			e.writeMu.Lock()
			defer e.writeMu.Unlock()
		}
		e.roundTrips.Add(1)
		_, err := e.db.ExecContext(ctx, q, 1, time.Now().UnixNano())
		return err
	}
	if err := e.withFloorTable(ctx, write); err != nil {
		return fmt.Errorf("%s floor write: %w", e.d.name, err)
	}
	return nil
}

// ProbeRead is one SELECT of the scratch row by its primary key.
func (e *Engine) ProbeRead(ctx context.Context) error {
	q := e.d.rebind("SELECT v FROM " + floorTable + " WHERE id = ?")
	read := func() error {
		e.roundTrips.Add(1)
		var v int64
		err := e.db.QueryRowContext(ctx, q, 1).Scan(&v)
		if errors.Is(err, dbsql.ErrNoRows) {
			return nil
		}
		return err
	}
	if err := e.withFloorTable(ctx, read); err != nil {
		return fmt.Errorf("%s floor read: %w", e.d.name, err)
	}
	return nil
}

// withFloorTable runs probe; when it fails, it creates the scratch table
// if it is missing and runs probe once more, so that only the first probe
// of a volume pays for the table.
func (e *Engine) withFloorTable(ctx context.Context, probe func() error) error {
	err := probe()
	if err == nil || ctx.Err() != nil {
		return err
	}
	create := "CREATE TABLE IF NOT EXISTS " + floorTable + " (id BIGINT NOT NULL PRIMARY KEY, v BIGINT NOT NULL)" + e.d.tableOptions
	if _, cerr := e.db.ExecContext(ctx, create); cerr != nil {
		return fmt.Errorf("%w (and creating the scratch table %s failed: %v)", err, floorTable, cerr)
	}
	return probe()
}
