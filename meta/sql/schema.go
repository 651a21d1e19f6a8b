package sql

import (
	"context"
	dbsql "database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"cairn/meta"
)

// schemaVersion is the layout of the tables below. A release that changes
// them raises it and teaches Init to upgrade older layouts in place.
const schemaVersion = 1

// table is one table of the schema; columns use the template type names
// {INT}, {KEY} (short ASCII), {NAME} (file or xattr name, compared bytewise),
// {VALUE} (up to 64 KiB) and {BLOB} (unbounded).
type table struct {
	name    string
	columns string
	index   string // a secondary index on these columns, if any
}

var tables = []table{
	{name: "cairn_setting", columns: "name {KEY} NOT NULL PRIMARY KEY, value {BLOB} NOT NULL"},
	{name: "cairn_counter", columns: "name {KEY} NOT NULL PRIMARY KEY, value {INT} NOT NULL"},
	{name: "cairn_usage", columns: "id {INT} NOT NULL PRIMARY KEY, space {INT} NOT NULL, inodes {INT} NOT NULL"},
	{name: "cairn_node", columns: "ino {INT} NOT NULL PRIMARY KEY, ftype {INT} NOT NULL, mode {INT} NOT NULL, " +
		"uid {INT} NOT NULL, gid {INT} NOT NULL, rdev {INT} NOT NULL, nlink {INT} NOT NULL, length {INT} NOT NULL, " +
		"atime {INT} NOT NULL, mtime {INT} NOT NULL, ctime {INT} NOT NULL, parent {INT} NOT NULL"},
	{name: "cairn_edge", columns: "parent {INT} NOT NULL, name {NAME} NOT NULL, ino {INT} NOT NULL, ftype {INT} NOT NULL, " +
		"PRIMARY KEY (parent, name)"},
	{name: "cairn_chunk", columns: "ino {INT} NOT NULL, idx {INT} NOT NULL, slices {BLOB} NOT NULL, PRIMARY KEY (ino, idx)"},
	{name: "cairn_symlink", columns: "ino {INT} NOT NULL PRIMARY KEY, target {BLOB} NOT NULL"},
	{name: "cairn_xattr", columns: "ino {INT} NOT NULL, name {NAME} NOT NULL, value {VALUE} NOT NULL, PRIMARY KEY (ino, name)"},
	{name: "cairn_session", columns: "sid {INT} NOT NULL PRIMARY KEY, info {BLOB} NOT NULL, heartbeat {INT} NOT NULL"},
	{name: "cairn_orphan", columns: "ino {INT} NOT NULL PRIMARY KEY, sid {INT} NOT NULL", index: "sid"},
	{name: "cairn_sliceref", columns: "id {INT} NOT NULL PRIMARY KEY, size {INT} NOT NULL, refs {INT} NOT NULL"},
	{name: "cairn_dead", columns: "id {INT} NOT NULL PRIMARY KEY, size {INT} NOT NULL"},
	{name: "cairn_flock", columns: "ino {INT} NOT NULL, sid {INT} NOT NULL, owner {INT} NOT NULL, ltype {INT} NOT NULL, " +
		"PRIMARY KEY (ino, sid, owner)", index: "sid"},
	{name: "cairn_plock", columns: "ino {INT} NOT NULL, sid {INT} NOT NULL, owner {INT} NOT NULL, ranges {BLOB} NOT NULL, " +
		"PRIMARY KEY (ino, sid, owner)", index: "sid"},
	changeTable,
	dirStatTable,
	quotaTable,
}

// ddl is the statements creating table t in dialect d.
func (d *dialect) ddl(t table) []string {
	cols := t.columns
	for _, ty := range []string{"INT", "KEY", "NAME", "VALUE", "BLOB"} {
		cols = strings.ReplaceAll(cols, "{"+ty+"}", d.types[ty])
	}
	var out []string
	if t.index != "" && d.inlineIndex {
		cols += ", INDEX " + t.name + "_" + t.index + " (" + t.index + ")"
	}
	out = append(out, "CREATE TABLE IF NOT EXISTS "+t.name+" ("+cols+")"+d.tableOptions)
	if t.index != "" && !d.inlineIndex {
		out = append(out, "CREATE INDEX IF NOT EXISTS "+t.name+"_"+t.index+" ON "+t.name+" ("+t.index+")")
	}
	return out
}

// Init creates the tables if needed and formats the volume.
func (e *Engine) Init(ctx context.Context, f meta.Format, force bool) error {
	if e.missingFile() {
		if err := createFile(e.file); err != nil {
			return err
		}
	}
	c := &conn{ctx: ctx, e: e, q: e.db}
	if e.d.checkServer != nil {
		if err := e.d.checkServer(c); err != nil {
			return e.explain(err)
		}
	}
	for _, t := range tables {
		for _, stmt := range e.d.ddl(t) {
			if _, err := c.exec(stmt); err != nil {
				return fmt.Errorf("create table %s: %w", t.name, e.explain(err))
			}
		}
	}
	if err := c.installRoutines(); err != nil {
		return err
	}
	js, err := json.Marshal(f)
	if err != nil {
		return fmt.Errorf("encode volume settings: %w", err)
	}
	err = e.txn(ctx, func(c *conn) error {
		_, found, err := c.loadFormat()
		if err != nil {
			return err
		}
		if found && !force {
			return meta.ErrFormatted
		}
		setting := e.d.upsert("cairn_setting", []string{"name", "value"}, 1)
		if _, err := c.exec(setting, "format", js); err != nil {
			return err
		}
		if _, err := c.exec(setting, "schema", []byte(strconv.Itoa(schemaVersion))); err != nil {
			return err
		}
		if _, err := c.exec(setting, "routines", []byte(strconv.Itoa(routinesVersion))); err != nil {
			return err
		}
		if found {
			return nil
		}
		for _, name := range []string{"inode", "slice", "session", "rename"} {
			if _, err := c.exec("DELETE FROM cairn_counter WHERE name = ?", name); err != nil {
				return err
			}
			first := int64(0)
			if name == "inode" {
				first = int64(meta.RootIno)
			}
			if _, err := c.exec("INSERT INTO cairn_counter (name, value) VALUES (?, ?)", name, first); err != nil {
				return err
			}
		}
		if _, err := c.exec("DELETE FROM cairn_usage"); err != nil {
			return err
		}
		if err := c.insertUsage(0, 1); err != nil {
			return err
		}
		now := time.Now().UnixNano()
		root := meta.Attr{Type: meta.TypeDirectory, Mode: 0777, Nlink: 2, Length: 4096,
			Atime: now, Mtime: now, Ctime: now, Parent: meta.RootIno}
		if _, err := c.exec("DELETE FROM cairn_node WHERE ino = ?", int64(meta.RootIno)); err != nil {
			return err
		}
		return c.insertNode(meta.RootIno, &root)
	})
	if err != nil {
		return fmt.Errorf("format %s volume: %w", e.d.name, e.explain(err))
	}
	e.limits.Store(&f)
	return nil
}

// Load reads the volume's settings.
func (e *Engine) Load(ctx context.Context) (meta.Format, error) {
	if e.missingFile() {
		return meta.Format{}, fmt.Errorf("%s does not exist: %w", e.file, meta.ErrNotFormatted)
	}
	var f meta.Format
	err := e.read(ctx, func(c *conn) error {
		if e.d.checkServer != nil {
			if err := e.d.checkServer(c); err != nil {
				return err
			}
		}
		g, found, err := c.loadFormat()
		if err != nil {
			return err
		}
		if !found {
			return meta.ErrNotFormatted
		}
		f = g
		return meta.CheckVersion(f)
	})
	if err != nil {
		return meta.Format{}, e.explain(err)
	}
	e.limits.Store(&f)
	e.upgradeRoutines(ctx)
	return f, nil
}

// installRoutines creates or replaces the server-side routines.
func (c *conn) installRoutines() error {
	for _, fn := range c.e.d.functions {
		if _, err := c.exec(fn); err != nil {
			return fmt.Errorf("install server-side function (does the user have the right to create routines?): %w", err)
		}
	}
	return nil
}

// upgradeRoutines installs the routines of this release on a volume that
// records older ones (formatted by an earlier release). Where that fails
// (a user without the right to create routines), the operations whose
// routine is missing run as general transactions, slower but the same.
func (e *Engine) upgradeRoutines(ctx context.Context) {
	if len(e.d.functions) == 0 {
		return
	}
	c := &conn{ctx: ctx, e: e, q: e.db}
	var v []byte
	if err := c.queryRow("SELECT value FROM cairn_setting WHERE name = 'routines'").Scan(&v); err != nil && !isNoRows(err) {
		slog.Warn("read the version of the server-side routines", "err", err)
		return
	}
	if n, _ := strconv.Atoi(string(v)); n >= routinesVersion {
		return
	}
	// Before the routines that change them: a volume of an earlier
	// release has one usage row.
	e.addUsageShards(ctx)
	err := c.installRoutines()
	if err == nil {
		_, err = c.exec(e.d.upsert("cairn_setting", []string{"name", "value"}, 1), "routines", []byte(strconv.Itoa(routinesVersion)))
	}
	if err != nil {
		slog.Warn("volume formatted by an earlier release: cannot install this release's server-side routines, operations run slower without them", "err", err)
		return
	}
	slog.Info("installed this release's server-side routines", "version", routinesVersion)
}

// loadFormat reads the settings and checks the schema version; found is
// false when the database holds no volume (no cairn tables, or empty ones).
func (c *conn) loadFormat() (f meta.Format, found bool, err error) {
	rows, err := c.query("SELECT name, value FROM cairn_setting WHERE name IN ('format', 'schema')")
	if err != nil {
		if exists, err2 := c.tableExists("cairn_setting"); err2 == nil && !exists {
			return f, false, nil
		}
		return f, false, fmt.Errorf("read volume settings: %w", err)
	}
	defer rows.Close()
	var js, version []byte
	for rows.Next() {
		var name string
		var value []byte
		if err := rows.Scan(&name, &value); err != nil {
			return f, false, err
		}
		if name == "format" {
			js = value
		} else {
			version = value
		}
	}
	if err := rows.Err(); err != nil {
		return f, false, err
	}
	if js == nil {
		return f, false, nil
	}
	v, err := strconv.Atoi(string(version))
	if err != nil {
		return f, false, fmt.Errorf("volume's schema version %q is not a number: the database is damaged", version)
	}
	if v > schemaVersion {
		return f, false, fmt.Errorf("the volume's metadata uses schema version %d, this cairn knows up to %d: upgrade cairn", v, schemaVersion)
	}
	if v < schemaVersion {
		return f, false, fmt.Errorf("the volume's metadata uses schema version %d, older than this cairn's %d, and this release has no upgrade for it: use the cairn release that formatted it", v, schemaVersion)
	}
	if err := json.Unmarshal(js, &f); err != nil {
		return f, false, fmt.Errorf("decode volume settings: %w", err)
	}
	return f, true, nil
}

// explain makes a failure to reach or log in to the database one line a
// user can act on.
func (e *Engine) explain(err error) error {
	if err == nil || errors.Is(err, meta.ErrNotFormatted) || errors.Is(err, meta.ErrFormatted) {
		return err
	}
	if e.d.explain != nil {
		if x := e.d.explain(err); x != err {
			return x
		}
	}
	if e.d.connectionLost(err) {
		return fmt.Errorf("cannot reach the %s server (check the host and port, and that it runs): %w", e.d.name, err)
	}
	return err
}

// tableExists asks the database's catalogue whether a table exists.
func (c *conn) tableExists(name string) (bool, error) {
	var any string
	err := c.queryRow(c.e.d.tableExists, name).Scan(&any)
	if errors.Is(err, dbsql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}
