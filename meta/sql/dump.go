package sql

import (
	"context"
	dbsql "database/sql"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"cairn/meta"
)

var _ meta.Dumper = (*Engine)(nil)

// Dump implements meta.Dumper. It reads in one read-only transaction at
// REPEATABLE READ on PostgreSQL and MySQL/MariaDB, and in a deferred
// transaction on SQLite, whose first read pins a WAL snapshot without
// holding off writers (the engine's own transactions BEGIN IMMEDIATE). So
// the dump is the volume at one moment while clients go on writing. Each
// table is read by one streaming query.
func (e *Engine) Dump(ctx context.Context, w meta.DumpWriter) error {
	if e.missingFile() {
		return fmt.Errorf("%s does not exist: %w", e.file, meta.ErrNotFormatted)
	}
	err := e.snapshot(ctx, func(c *conn) error { return c.dump(w) })
	if err != nil {
		return fmt.Errorf("dump the volume on %s: %w", e.d.name, e.explain(err))
	}
	return nil
}

// snapshot runs fn in a read-only transaction that sees one moment.
func (e *Engine) snapshot(ctx context.Context, fn func(c *conn) error) error {
	if e.d.singleWriter {
		sc, err := e.db.Conn(ctx)
		if err != nil {
			return err
		}
		defer sc.Close()
		if _, err := sc.ExecContext(ctx, "BEGIN DEFERRED"); err != nil {
			return err
		}
		defer sc.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		return fn(&conn{ctx: ctx, e: e, q: sc})
	}
	tx, err := e.db.BeginTx(ctx, &dbsql.TxOptions{Isolation: dbsql.LevelRepeatableRead, ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	return fn(&conn{ctx: ctx, e: e, q: tx})
}

func (c *conn) dump(w meta.DumpWriter) error {
	var h meta.DumpHeader
	// Asked first: on PostgreSQL a query of a missing table would abort
	// the transaction.
	if exists, err := c.tableExists("cairn_setting"); err != nil || !exists {
		if err == nil {
			err = meta.ErrNotFormatted
		}
		return err
	}
	f, found, err := c.loadFormat()
	if err != nil {
		return err
	}
	if !found {
		return meta.ErrNotFormatted
	}
	h.Format = f
	err = c.each("SELECT name, value FROM cairn_counter WHERE name IN ('inode', 'slice')", func(rows *dbsql.Rows) error {
		var name string
		var value int64
		if err := rows.Scan(&name, &value); err != nil {
			return err
		}
		if name == "inode" {
			h.NextInode = uint64(value) + 1
		} else {
			h.NextSlice = uint64(value) + 1
		}
		return nil
	})
	if err != nil {
		return err
	}
	space, inodes, err := c.usage()
	if err != nil {
		return fmt.Errorf("read usage: %w", err)
	}
	h.Usage = meta.Usage{Space: uint64(space), Inodes: uint64(inodes)}
	orphans := map[meta.Ino]bool{}
	err = c.each("SELECT ino FROM cairn_orphan", func(rows *dbsql.Rows) error {
		var ino int64
		err := rows.Scan(&ino)
		orphans[meta.Ino(ino)] = true
		return err
	})
	if err != nil {
		return err
	}
	if err := w.Header(h); err != nil {
		return err
	}
	var rec meta.DumpRecord
	emit := func(ino int64) error {
		if orphans[meta.Ino(ino)] {
			return nil
		}
		rec.Ino = meta.Ino(ino)
		return w.Record(&rec)
	}
	// Every row is scanned into the same variables, so that reading
	// millions of rows allocates nothing for them.
	var ino, idx, child, typ, size int64
	var name, blob []byte
	var attr meta.Attr
	attrCols, storeAttr := attrDest(&attr)
	steps := []struct {
		query  string
		dest   []any
		record func() error
	}{
		{"SELECT ino, " + nodeCols + " FROM cairn_node", append([]any{&ino}, attrCols...), func() error {
			storeAttr()
			rec = meta.DumpRecord{Kind: meta.DumpInode, Attr: attr}
			return emit(ino)
		}},
		{"SELECT parent, name, ino, ftype FROM cairn_edge", []any{&ino, &name, &child, &typ}, func() error {
			rec = meta.DumpRecord{Kind: meta.DumpEntry, Name: string(name), Child: meta.Ino(child), Type: meta.FileType(typ)}
			return emit(ino)
		}},
		{"SELECT ino, target FROM cairn_symlink", []any{&ino, &blob}, func() error {
			rec = meta.DumpRecord{Kind: meta.DumpSymlink, Target: string(blob)}
			return emit(ino)
		}},
		{"SELECT ino, name, value FROM cairn_xattr", []any{&ino, &name, &blob}, func() error {
			value := blob
			if value == nil {
				value = []byte{}
			}
			rec = meta.DumpRecord{Kind: meta.DumpXattr, Name: string(name), Value: value}
			return emit(ino)
		}},
		{"SELECT ino, idx, slices FROM cairn_chunk", []any{&ino, &idx, &blob}, func() error {
			list, err := meta.DecodeSliceRecords(blob)
			if err != nil {
				return fmt.Errorf("chunk %d of inode %d: %w", idx, ino, err)
			}
			rec = meta.DumpRecord{Kind: meta.DumpChunk, Index: uint32(idx), Slices: list}
			return emit(ino)
		}},
		{"SELECT id, size FROM cairn_dead", []any{&ino, &size}, func() error {
			rec = meta.DumpRecord{Kind: meta.DumpDeadSlice, Slice: meta.DeadSlice{ID: uint64(ino), Size: uint32(size)}}
			return w.Record(&rec)
		}},
	}
	for _, s := range steps {
		err := c.eachRow(s.query, func(row scanner) error {
			if err := row.Scan(s.dest...); err != nil {
				return err
			}
			return s.record()
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// eachRow runs a query and calls fn for every row, as the rows stream in:
// on SQLite's own connection without database/sql (eachDriverRow), since
// a dump reads millions of rows.
func (c *conn) eachRow(q string, fn func(row scanner) error) error {
	if sc, ok := c.q.(*dbsql.Conn); ok && c.e.d.singleWriter {
		c.e.roundTrips.Add(1)
		return eachDriverRow(c.ctx, sc, q, fn)
	}
	return c.each(q, func(rows *dbsql.Rows) error { return fn(rows) })
}

// each runs a query and calls fn for every row, as the rows stream in.
func (c *conn) each(q string, fn func(rows *dbsql.Rows) error) error {
	rows, err := c.query(q)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Restore implements meta.Dumper. It creates the tables if needed, then
// writes every record in one transaction, in multi-row INSERTs: a load
// that fails rolls back whole and leaves the tables empty. Only cairn's
// own tables are checked for emptiness; other tables in the same database
// are left alone.
func (e *Engine) Restore(ctx context.Context, r meta.DumpReader) error {
	if err := e.restore(ctx, r); err != nil {
		return fmt.Errorf("load into %s: %w", e.d.name, e.explain(err))
	}
	f := r.Header().Format
	e.limits.Store(&f)
	return nil
}

func (e *Engine) restore(ctx context.Context, r meta.DumpReader) error {
	if e.missingFile() {
		if err := createFile(e.file); err != nil {
			return err
		}
	}
	c := &conn{ctx: ctx, e: e, q: e.db}
	if e.d.checkServer != nil {
		if err := e.d.checkServer(c); err != nil {
			return err
		}
	}
	for _, t := range tables {
		exists, err := c.tableExists(t.name)
		if err != nil {
			return err
		}
		if !exists {
			continue
		}
		var one int64
		err = c.queryRow("SELECT 1 FROM " + t.name + " LIMIT 1").Scan(&one)
		if err == nil {
			return meta.ErrDatabaseNotEmpty
		}
		if !isNoRows(err) {
			return err
		}
	}
	for _, t := range tables {
		for _, stmt := range e.d.ddl(t) {
			if _, err := c.exec(stmt); err != nil {
				return fmt.Errorf("create table %s: %w", t.name, err)
			}
		}
	}
	if err := c.installRoutines(); err != nil {
		return err
	}
	if e.writeMu != nil {
		e.writeMu.Lock()
		defer e.writeMu.Unlock()
	}
	sc, err := e.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer sc.Close()
	tx, err := sc.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if e.d.singleWriter {
		// A load writes one long transaction; with SQLite's default page
		// cache of 2 MiB its B-trees spill and it slows as it grows.
		if _, err := tx.ExecContext(ctx, "PRAGMA cache_size = -65536"); err != nil {
			return err
		}
	}
	copier := copierOf(ctx, sc, &e.roundTrips)
	if copier != nil {
		// Deferred after the transaction: its copies end before the
		// rollback of a load that failed.
		defer copier.close()
	}
	if err := (&conn{ctx: ctx, e: e, q: tx}).restore(r, copier); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	if e.d.analyzeAfterLoad {
		names := make([]string, len(tables))
		for i, t := range tables {
			names[i] = t.name
		}
		if _, err := sc.ExecContext(ctx, "ANALYZE "+strings.Join(names, ", ")); err != nil {
			return fmt.Errorf("the volume is loaded, but gathering the tables' statistics (ANALYZE) failed: %w", err)
		}
	}
	return nil
}

// bulkRows is how many rows one INSERT carries: far below every
// database's limit on placeholders (12 columns × 400).
const bulkRows = 400

// bulkInsert gathers rows of one table and inserts them bulkRows at a
// time, or through copier as many at a time as it takes.
type bulkInsert struct {
	c      *conn
	table  string
	names  []string
	cols   int
	batch  int
	rows   int
	args   []any
	copier copier
	// prepared is the INSERT of bulkRows rows, once one was sent.
	prepared *dbsql.Stmt
}

func (c *conn) bulk(copier copier, table string, cols ...string) *bulkInsert {
	b := &bulkInsert{c: c, table: table, names: cols, cols: len(cols), copier: copier, batch: bulkRows}
	if copier != nil {
		b.batch = copier.rowsPerCopy()
	}
	return b
}

func (b *bulkInsert) add(args ...any) error {
	b.args = append(b.args, args...)
	b.rows++
	if b.rows == b.batch {
		return b.flush()
	}
	return nil
}

func (b *bulkInsert) flush() error {
	if b.rows == 0 {
		return nil
	}
	var err error
	if b.copier != nil {
		err = b.copier.copy(b.table, b.names, b.args)
	} else if b.rows == bulkRows {
		err = wrapInsert(b.table, b.full())
	} else {
		_, err = b.c.execCount(insertStatement(b.table, b.names, b.rows), b.args...)
		err = wrapInsert(b.table, err)
	}
	clear(b.args)
	b.rows, b.args = 0, b.args[:0]
	return err
}

// full inserts bulkRows rows with a statement prepared once per table, so
// that the database parses and plans the long INSERT once, not once per
// batch.
func (b *bulkInsert) full() error {
	preparer, ok := b.c.q.(interface {
		PrepareContext(ctx context.Context, query string) (*dbsql.Stmt, error)
	})
	if !ok {
		_, err := b.c.execCount(insertStatement(b.table, b.names, bulkRows), b.args...)
		return err
	}
	if b.prepared == nil {
		stmt, err := preparer.PrepareContext(b.c.ctx, b.c.e.bind(insertStatement(b.table, b.names, bulkRows)))
		if err != nil {
			return err
		}
		b.prepared = stmt
	}
	b.c.e.roundTrips.Add(1)
	_, err := b.prepared.ExecContext(b.c.ctx, b.args...)
	return err
}

// restore writes every record, through copier where the database has one
// (nil: multi-row INSERTs).
func (c *conn) restore(r meta.DumpReader, copier copier) error {
	nodes := c.bulk(copier, "cairn_node", append([]string{"ino"}, strings.Split(nodeCols, ", ")...)...)
	edges := c.bulk(copier, "cairn_edge", "parent", "name", "ino", "ftype")
	symlinks := c.bulk(copier, "cairn_symlink", "ino", "target")
	xattrs := c.bulk(copier, "cairn_xattr", "ino", "name", "value")
	chunks := c.bulk(copier, "cairn_chunk", "ino", "idx", "slices")
	dead := c.bulk(copier, "cairn_dead", "id", "size")
	refs := c.bulk(copier, "cairn_sliceref", "id", "size", "refs")
	tally := meta.NewRestoreTally()
	firstRef := func(s meta.Slice) error { return refs.add(int64(s.ID), int64(s.Size), int64(1)) }
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if err := tally.Record(rec, firstRef); err != nil {
			return err
		}
		ino := int64(rec.Ino)
		switch rec.Kind {
		case meta.DumpInode:
			a := &rec.Attr
			err = nodes.add(ino, int64(a.Type), int64(a.Mode), int64(a.Uid), int64(a.Gid), int64(a.Rdev), int64(a.Nlink),
				int64(a.Length), a.Atime, a.Mtime, a.Ctime, int64(a.Parent))
		case meta.DumpEntry:
			err = edges.add(ino, nameArg(rec.Name), int64(rec.Child), int64(rec.Type))
		case meta.DumpSymlink:
			err = symlinks.add(ino, blobArg([]byte(rec.Target)))
		case meta.DumpXattr:
			err = xattrs.add(ino, nameArg(rec.Name), blobArg(append([]byte{}, rec.Value...)))
		case meta.DumpChunk:
			blob := make([]byte, 0, len(rec.Slices)*meta.SliceRecordSize)
			for _, s := range rec.Slices {
				blob = meta.AppendSliceRecord(blob, s)
			}
			err = chunks.add(ino, int64(rec.Index), blob)
		case meta.DumpDeadSlice:
			err = dead.add(int64(rec.Slice.ID), int64(rec.Slice.Size))
		default:
			err = fmt.Errorf("unknown dump record kind %d", rec.Kind)
		}
		if err != nil {
			return err
		}
	}
	for _, b := range []*bulkInsert{nodes, edges, symlinks, xattrs, chunks, dead, refs} {
		if err := b.flush(); err != nil {
			return err
		}
	}
	if copier != nil {
		// What follows goes through the transaction: the copies must
		// be in before it.
		if err := copier.close(); err != nil {
			return err
		}
	}
	err := tally.Shared(func(s meta.SharedSlice) error {
		_, err := c.execCount("UPDATE cairn_sliceref SET refs = ? WHERE id = ?", int64(s.Refs), int64(s.ID))
		return err
	})
	if err != nil {
		return fmt.Errorf("count shared slices: %w", err)
	}
	usage := tally.Usage()
	space, inodes := int64(usage.Space), int64(usage.Inodes)
	h := r.Header()
	js, err := json.Marshal(h.Format)
	if err != nil {
		return fmt.Errorf("encode volume settings: %w", err)
	}
	counters := map[string]int64{"inode": int64(h.NextInode) - 1, "slice": int64(h.NextSlice) - 1, "session": 0, "rename": 0}
	for name, v := range counters {
		if _, err := c.execCount("INSERT INTO cairn_counter (name, value) VALUES (?, ?)", name, v); err != nil {
			return err
		}
	}
	if err := c.insertUsage(space, inodes); err != nil {
		return err
	}
	settings := c.bulk(nil, "cairn_setting", "name", "value")
	for _, s := range [][2]string{
		{"schema", strconv.Itoa(schemaVersion)},
		{"routines", strconv.Itoa(routinesVersion)},
		{"format", string(js)},
	} {
		if err := settings.add(s[0], []byte(s[1])); err != nil {
			return err
		}
	}
	return settings.flush()
}
