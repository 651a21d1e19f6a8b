package sql

import (
	"context"
	dbsql "database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

var mysqlDialect = dialect{
	name:          "mysql",
	forUpdate:     " FOR UPDATE",
	usageShard:    "CONNECTION_ID() % 16 + 1",
	mysqlUpsert:   true,
	inlineIndex:   true,
	batch:         true, // MultiStatements with InterpolateParams
	batchReads:    true,
	functions:     mysqlRoutines,
	routines:      true,
	callProcedure: true,
	missingRoutine: func(err error) bool {
		var me *mysql.MySQLError
		return errors.As(err, &me) && me.Number == 1305 // ER_SP_DOES_NOT_EXIST
	},
	types: map[string]string{
		"INT": "BIGINT", "KEY": "VARCHAR(64)", "NAME": "VARBINARY(255)", "VALUE": "MEDIUMBLOB", "BLOB": "LONGBLOB",
	},
	tableOptions: " ENGINE=InnoDB",
	retryable: func(err error) bool {
		var me *mysql.MySQLError
		// deadlock, lock wait timeout, MariaDB's "record has changed"
		return errors.As(err, &me) && (me.Number == 1213 || me.Number == 1205 || me.Number == 1020)
	},
	connectionLost: func(err error) bool {
		var me *mysql.MySQLError
		if errors.As(err, &me) {
			// server shutdown, gone away, lost connection, connection killed
			return me.Number == 1053 || me.Number == 2006 || me.Number == 2013 || me.Number == 1927
		}
		return errors.Is(err, mysql.ErrInvalidConn) || connectionError(err)
	},
	tableExists: "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?",
	checkServer: func(c *conn) error {
		var v string
		if err := c.queryRow("SELECT VERSION()").Scan(&v); err != nil {
			return err
		}
		return mysqlVersionOK(v)
	},
	explain: func(err error) error {
		var me *mysql.MySQLError
		if errors.As(err, &me) {
			switch me.Number {
			case 1045, 1044:
				return fmt.Errorf("MySQL refused the login (%s): check the user and password (META_PASSWORD)", me.Message)
			case 1049:
				return fmt.Errorf("MySQL has no such database (%s): create it first (CREATE DATABASE)", me.Message)
			}
		}
		return err
	},
}

// mysqlVersionOK refuses a server too old for the schema and the
// statements cairn sends: MariaDB before 10.5, MySQL before 8.0. v is what
// SELECT VERSION() returns, e.g. "10.11.19-MariaDB-0+deb12u1" or "8.0.36";
// a MariaDB behind the replication prefix "5.5.5-" is read past it.
func mysqlVersionOK(v string) error {
	mariadb := strings.Contains(v, "MariaDB")
	if mariadb {
		v = strings.TrimPrefix(v, "5.5.5-")
	}
	major, minor, ok := versionOf(v)
	switch {
	case !ok:
		return fmt.Errorf("cannot read the MySQL server version %q: cairn needs MySQL 8.0 or MariaDB 10.5 or later", v)
	case mariadb && (major < 10 || major == 10 && minor < 5):
		return fmt.Errorf("MariaDB server version %s is too old: cairn needs 10.5 or later", v)
	case !mariadb && major < 8:
		return fmt.Errorf("MySQL server version %s is too old: cairn needs 8.0 or later", v)
	}
	return nil
}

// versionOf reads "major.minor" from the front of a version string.
func versionOf(v string) (major, minor int, ok bool) {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return 0, 0, false
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(strings.TrimRightFunc(parts[1], func(r rune) bool { return r < '0' || r > '9' }))
	return major, minor, err1 == nil && err2 == nil
}

// OpenMySQL connects to mysql://user[:password]@(host:3306)/db or
// mysql://user[:password]@unix(/path/mysqld.sock)/db, with optional
// max_open_conns and max_idle_conns and the driver's own parameters. The
// password may instead come from META_PASSWORD. Works on MySQL 8 and
// MariaDB 10.5+; transactions run at READ COMMITTED, set per connection
// with SET SESSION TRANSACTION, which both servers understand.
func OpenMySQL(rawURL string) (*Engine, error) {
	bad := func(why string) error {
		return fmt.Errorf("malformed MySQL URL %q: %s (expected mysql://user[:password]@(host:3306)/database)", redactMySQL(rawURL), why)
	}
	rest, ok := strings.CutPrefix(rawURL, "mysql://")
	if !ok {
		return nil, bad("no mysql:// prefix")
	}
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return nil, bad("no user@")
	}
	userinfo, target := rest[:at], rest[at+1:]
	target, rawQuery, _ := strings.Cut(target, "?")
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return nil, bad(err.Error())
	}
	pool, err := poolLimits(q)
	if err != nil {
		return nil, bad(err.Error())
	}
	var network, addr, db string
	switch {
	case strings.HasPrefix(target, "unix("), strings.HasPrefix(target, "tcp("), strings.HasPrefix(target, "("):
		open := strings.Index(target, "(")
		end := strings.Index(target, ")")
		if end < 0 {
			return nil, bad("unclosed (")
		}
		network, addr = target[:open], target[open+1:end]
		if network == "" {
			network = "tcp"
		}
		db = strings.TrimPrefix(target[end+1:], "/")
	default:
		network = "tcp"
		addr, db, _ = strings.Cut(target, "/")
	}
	if db == "" {
		return nil, bad("no database name")
	}
	if network == "tcp" && !strings.Contains(addr, ":") {
		addr += ":3306"
	}
	user, pass, hasPass := strings.Cut(userinfo, ":")
	dsn := fmt.Sprintf("%s@%s(%s)/%s", user, network, addr, db)
	if len(q) > 0 {
		dsn += "?" + q.Encode()
	}
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, bad(err.Error())
	}
	if !hasPass {
		pass = os.Getenv("META_PASSWORD")
	}
	cfg.Passwd = pass
	cfg.ClientFoundRows = true
	cfg.InterpolateParams = true
	cfg.MultiStatements = true // a transaction's writes go with its COMMIT
	cfg.Logger = quietLogger{} // errors reach the engine, which retries or reports them
	if cfg.Timeout == 0 {
		cfg.Timeout = 5 * time.Second
	}
	inner, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, bad(err.Error())
	}
	sqldb := dbsql.OpenDB(readCommitted{inner})
	pool.apply(sqldb)
	return newEngine(sqldb, &mysqlDialect), nil
}

// redactMySQL hides the password in a mysql:// URL.
func redactMySQL(raw string) string {
	rest, ok := strings.CutPrefix(raw, "mysql://")
	at := strings.LastIndex(rest, "@")
	if !ok || at < 0 {
		return raw
	}
	if user, _, has := strings.Cut(rest[:at], ":"); has {
		return "mysql://" + user + ":xxxxx@" + rest[at+1:]
	}
	return raw
}

// quietLogger drops the driver's own log lines ("unexpected EOF" while a
// server restarts); the same errors are returned to the engine.
type quietLogger struct{}

func (quietLogger) Print(...any) {}

// readCommitted sets READ COMMITTED on every new connection, so that a
// transaction's plain reads see what committed before each statement (the
// engine locks what it changes with SELECT ... FOR UPDATE).
type readCommitted struct{ driver.Connector }

func (r readCommitted) Connect(ctx context.Context) (driver.Conn, error) {
	c, err := r.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	ex, ok := c.(driver.ExecerContext)
	if !ok {
		c.Close()
		return nil, errors.New("MySQL driver connection cannot run statements")
	}
	if _, err := ex.ExecContext(ctx, "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED", nil); err != nil {
		c.Close()
		return nil, fmt.Errorf("set isolation level: %w", err)
	}
	return c, nil
}
