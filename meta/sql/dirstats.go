package sql

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"cairn/meta"
)

var _ meta.DirStatStore = (*Engine)(nil)

// dirStatTable holds directory statistics (meta.DirStatStore), one row
// per directory that has any, and the records of flush marks
// (meta.FlushMark): ino is the mark's key, which as an int64 is negative
// and so never a directory, and inodes the highest Seq applied.
var dirStatTable = table{name: "cairn_dirstat", columns: "ino {INT} NOT NULL PRIMARY KEY, space {INT} NOT NULL, inodes {INT} NOT NULL"}

// dirStatRows is how many directories one statement changes.
const dirStatRows = 200

// ensureDirStatTable creates cairn_dirstat and cairn_quota on a volume
// formatted before they existed, once per Engine.
func (e *Engine) ensureDirStatTable(ctx context.Context) error {
	if e.dirStatsTable.Load() {
		return nil
	}
	c := &conn{ctx: ctx, e: e, q: e.db}
	for _, t := range []table{dirStatTable, quotaTable} {
		for _, stmt := range e.d.ddl(t) {
			if _, err := c.exec(stmt); err != nil {
				return fmt.Errorf("create table %s: %w", t.name, e.explain(err))
			}
		}
	}
	e.dirStatsTable.Store(true)
	return nil
}

// AddDirStats adds the deltas and forgets the removed directories'
// statistics in one transaction: a multi-row upsert per dirStatRows
// directories, in inode order so that concurrent flushes lock rows in
// the same order. A mark is checked first (claimMark); its row, whose
// key is negative, comes first in that order too.
func (e *Engine) AddDirStats(ctx context.Context, deltas map[meta.Ino]meta.DirStat, removed []meta.Ino, mark meta.FlushMark) error {
	return e.changeDirStats(ctx, deltas, removed, true, mark)
}

// SetDirStats replaces statistics, see meta.DirStatStore.
func (e *Engine) SetDirStats(ctx context.Context, stats map[meta.Ino]meta.DirStat, removed []meta.Ino) error {
	return e.changeDirStats(ctx, stats, removed, false, meta.FlushMark{})
}

func (e *Engine) changeDirStats(ctx context.Context, stats map[meta.Ino]meta.DirStat, removed []meta.Ino, add bool, mark meta.FlushMark) error {
	if err := e.ensureDirStatTable(ctx); err != nil {
		return err
	}
	dirs := make([]meta.Ino, 0, len(stats))
	for dir := range stats {
		dirs = append(dirs, dir)
	}
	slices.Sort(dirs)
	removed = slices.Clone(removed)
	slices.Sort(removed)
	err := e.txn(ctx, func(c *conn) error {
		if apply, err := c.claimMark(mark); err != nil || !apply {
			return err
		}
		for rest := dirs; len(rest) > 0; {
			batch := rest[:min(len(rest), dirStatRows)]
			rest = rest[len(batch):]
			args := make([]any, 0, 3*len(batch))
			for _, dir := range batch {
				args = append(args, int64(dir), stats[dir].Space, stats[dir].Inodes)
			}
			if _, err := c.exec(e.dirStatUpsert(len(batch), add), args...); err != nil {
				return err
			}
		}
		for rest := removed; len(rest) > 0; {
			batch := rest[:min(len(rest), dirStatRows)]
			rest = rest[len(batch):]
			args := make([]any, len(batch))
			for i, dir := range batch {
				args[i] = int64(dir)
			}
			q := "DELETE FROM cairn_dirstat WHERE ino IN (" + strings.TrimSuffix(strings.Repeat("?, ", len(batch)), ", ") + ")"
			if _, err := c.exec(q, args...); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("change directory statistics: %w", err)
	}
	return nil
}

// claimMark decides, inside a transaction, whether the call marked with
// mark is applied: yes without a mark; with one, when its record holds a
// lower Seq, which is then raised to mark.Seq with the call's changes.
//
// Two copies of one call may run at once (the first whose COMMIT's
// answer was lost, and the one sent again), so the record is read
// locked: the row is created first if missing, locking one that exists
// (a copy that finds it being inserted or locked waits for the other's
// COMMIT, and then sees what that copy committed). Where the database
// answers an upsert with the row (markInsert) that is one statement;
// elsewhere a SELECT FOR UPDATE follows. SQLite needs no lock (one
// writer). The read is a query, so the writes queued in a batched
// transaction reach the server before it and the answer is the
// database's.
func (c *conn) claimMark(mark meta.FlushMark) (bool, error) {
	if mark.Key == 0 {
		return true, nil
	}
	key := int64(mark.Key)
	insert, returns := c.e.markInsert()
	var seq int64
	var err error
	if returns {
		err = c.queryRow(insert, key).Scan(&seq)
	} else if _, err = c.exec(insert, key); err == nil {
		err = c.queryRow("SELECT inodes FROM cairn_dirstat WHERE ino = ?"+c.e.d.forUpdate, key).Scan(&seq)
	}
	if err != nil {
		return false, fmt.Errorf("read flush mark %d: %w", key, err)
	}
	if uint64(seq) >= mark.Seq {
		return false, nil // applied before: by an earlier copy of this call, or a later call
	}
	_, err = c.exec("UPDATE cairn_dirstat SET inodes = ? WHERE ino = ?", int64(mark.Seq), key)
	return err == nil, err
}

// markInsert creates a flush mark's record at Seq 0 (lower than any
// mark's), leaving one that exists as it is but locked for writing; it
// reports whether the statement also answers with the record's Seq. The
// no-op update takes the row's write lock at once, where a plain "do
// nothing" would leave an existing row unlocked (PostgreSQL) or take a
// shared lock that two copies of a call would then both try to raise
// (MySQL's INSERT IGNORE: a deadlock). With RETURNING (PostgreSQL,
// SQLite) the statement reads the record too: one round trip, not two.
func (e *Engine) markInsert() (q string, returns bool) {
	q = "INSERT INTO cairn_dirstat (ino, space, inodes) VALUES (?, 0, 0)"
	switch {
	case e.d.returning:
		return q + " ON CONFLICT (ino) DO UPDATE SET ino = excluded.ino RETURNING inodes", true
	case e.d.mysqlUpsert:
		return q + " ON DUPLICATE KEY UPDATE ino = ino", false
	default:
		return q + " ON CONFLICT (ino) DO NOTHING", false
	}
}

// dirStatUpsert inserts rows directories' statistics, adding to (add) or
// replacing those a directory already has.
func (e *Engine) dirStatUpsert(rows int, add bool) string {
	q := "INSERT INTO cairn_dirstat (ino, space, inodes) VALUES " + strings.TrimSuffix(strings.Repeat("(?, ?, ?), ", rows), ", ")
	switch {
	case e.d.mysqlUpsert && add:
		return q + " ON DUPLICATE KEY UPDATE space = space + VALUES(space), inodes = inodes + VALUES(inodes)"
	case e.d.mysqlUpsert:
		return q + " ON DUPLICATE KEY UPDATE space = VALUES(space), inodes = VALUES(inodes)"
	case add:
		return q + " ON CONFLICT (ino) DO UPDATE SET space = cairn_dirstat.space + excluded.space, inodes = cairn_dirstat.inodes + excluded.inodes"
	default:
		return q + " ON CONFLICT (ino) DO UPDATE SET space = excluded.space, inodes = excluded.inodes"
	}
}

// DirStats reads statistics, see meta.DirStatStore.
func (e *Engine) DirStats(ctx context.Context, dirs []meta.Ino) (map[meta.Ino]meta.DirStat, error) {
	if err := e.ensureDirStatTable(ctx); err != nil {
		return nil, err
	}
	out := make(map[meta.Ino]meta.DirStat, len(dirs))
	for rest := dirs; len(rest) > 0; {
		batch := rest[:min(len(rest), dirStatRows)]
		rest = rest[len(batch):]
		args := make([]any, len(batch))
		for i, dir := range batch {
			args[i] = int64(dir)
		}
		q := "SELECT ino, space, inodes FROM cairn_dirstat WHERE ino IN (" + strings.TrimSuffix(strings.Repeat("?, ", len(batch)), ", ") + ")"
		if err := e.scanDirStats(ctx, out, q, args...); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// AllDirStats lists every directory's statistics, see meta.DirStatStore.
// The flush marks' records (negative ino) are not directories: left out,
// so that neither a dump nor fsck --repair takes them for one.
func (e *Engine) AllDirStats(ctx context.Context) (map[meta.Ino]meta.DirStat, error) {
	if err := e.ensureDirStatTable(ctx); err != nil {
		return nil, err
	}
	out := map[meta.Ino]meta.DirStat{}
	return out, e.scanDirStats(ctx, out, "SELECT ino, space, inodes FROM cairn_dirstat WHERE ino >= 0")
}

func (e *Engine) scanDirStats(ctx context.Context, out map[meta.Ino]meta.DirStat, q string, args ...any) error {
	err := e.read(ctx, func(c *conn) error {
		rows, err := c.query(q, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var ino, space, inodes int64
			if err := rows.Scan(&ino, &space, &inodes); err != nil {
				return err
			}
			out[meta.Ino(ino)] = meta.DirStat{Space: space, Inodes: inodes}
		}
		return rows.Err()
	})
	if err != nil {
		return fmt.Errorf("read directory statistics: %w", err)
	}
	return nil
}
