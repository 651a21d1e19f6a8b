package sql

import (
	dbsql "database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/mattn/go-sqlite3"
)

var sqliteDialect = dialect{
	name:         "sqlite3",
	singleWriter: true,
	usageShard:   "1", // one writer at a time: nothing to spread
	returning:    true,
	types: map[string]string{
		"INT": "INTEGER", "KEY": "TEXT", "NAME": "BLOB", "VALUE": "BLOB", "BLOB": "BLOB",
	},
	retryable: func(err error) bool {
		var se sqlite3.Error
		return errors.As(err, &se) && (se.Code == sqlite3.ErrBusy || se.Code == sqlite3.ErrLocked)
	},
	connectionLost: func(error) bool { return false },
	tableExists:    "SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?",
}

// OpenSQLite opens the volume in the SQLite file named by a URL
// sqlite3:///path/vol.db (or sqlite3://relative/vol.db). The file is
// created by Init, never by merely opening it, so that a mistyped path
// reports "not formatted" instead of leaving an empty database behind.
//
// The database runs in WAL mode with synchronous=FULL: a commit is durable
// when it returns. Driver parameters in the URL override the defaults;
// "?_synchronous=NORMAL" makes mutations about ten times faster (no fsync
// per commit) at the price of losing the last operations on a power cut
// or kernel crash (not on a process crash). Several processes may share the file (two mounts of one
// volume): writers take the database lock at BEGIN and wait for each other
// up to the busy timeout. Each connection keeps its last 128 prepared
// statements (preparing costs more CPU than running a point query).
//
// Connections are opened without SQLite's own mutex (SQLITE_OPEN_NOMUTEX):
// database/sql hands a connection to one goroutine at a time and holds
// its lock around every call into the driver, and the one call the
// driver makes from elsewhere, sqlite3_interrupt, is safe without it. The
// mutex cost a lock and an unlock on every bound parameter and every
// column read: a sixth of a million-inode load's or dump's CPU.
func OpenSQLite(rawURL string) (*Engine, error) {
	rest, ok := strings.CutPrefix(rawURL, "sqlite3://")
	if !ok {
		return nil, fmt.Errorf("malformed SQLite URL %q: expected sqlite3:///path/to/vol.db", rawURL)
	}
	path, query, _ := strings.Cut(rest, "?")
	if path == "" {
		return nil, fmt.Errorf("malformed SQLite URL %q: no file path (expected sqlite3:///path/to/vol.db)", rawURL)
	}
	params, err := url.ParseQuery(query)
	if err != nil {
		return nil, fmt.Errorf("malformed SQLite URL %q: %v", rawURL, err)
	}
	set := func(k, v string) {
		if params.Get(k) == "" {
			params.Set(k, v)
		}
	}
	set("_journal_mode", "WAL")
	set("_synchronous", "FULL")
	set("_busy_timeout", "10000")
	set("_txlock", "immediate")
	set("_stmt_cache_size", "128")
	set("_mutex", "no")
	params.Set("mode", "rw")
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + params.Encode()
	db, err := dbsql.Open("sqlite3", dsn)
	if err != nil {
		return nil, fmt.Errorf("open SQLite database %s: %w", path, err)
	}
	db.SetMaxOpenConns(8)
	db.SetMaxIdleConns(8)
	e := newEngine(db, &sqliteDialect)
	e.file = path
	return e, nil
}

// createFile makes the empty database file Init formats.
func createFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("create SQLite database: %w", err)
	}
	return f.Close()
}

// missingFile reports whether the engine's SQLite file does not exist.
func (e *Engine) missingFile() bool {
	if e.file == "" {
		return false
	}
	_, err := os.Stat(e.file)
	return errors.Is(err, os.ErrNotExist)
}
