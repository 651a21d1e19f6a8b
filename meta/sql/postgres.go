package sql

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

var postgresDialect = dialect{
	name:      "postgres",
	dollar:    true,
	forUpdate: " FOR UPDATE",
	// The backend's process id, stable for a statement (an index look-up).
	usageShard: "pg_backend_pid() % 16 + 1",
	returning:  true,
	batch:      true,
	batchArg:   pgx.QueryExecModeSimpleProtocol,
	functions:  pgRoutines,
	routines:   true,
	missingRoutine: func(err error) bool {
		var pe *pgconn.PgError
		return errors.As(err, &pe) && pe.Code == "42883" // undefined_function
	},
	types: map[string]string{
		"INT": "BIGINT", "KEY": "TEXT", "NAME": "BYTEA", "VALUE": "BYTEA", "BLOB": "BYTEA",
	},
	retryable: func(err error) bool {
		var pe *pgconn.PgError
		// serialization_failure, deadlock_detected
		return errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01")
	},
	connectionLost: func(err error) bool {
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			// connection exceptions, admin/crash shutdown, starting up
			return strings.HasPrefix(pe.Code, "08") || pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03"
		}
		return connectionError(err) || pgconn.SafeToRetry(err)
	},
	notExecuted: func(err error) bool {
		// A server shutting down aborts what runs and answers with 57P0x
		// instead of a result; nothing was sent at all when SafeToRetry.
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			return strings.HasPrefix(pe.Code, "57P0")
		}
		var ce *pgconn.ConnectError
		return errors.As(err, &ce) || pgconn.SafeToRetry(err)
	},
	tableExists:      "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = ?",
	analyzeAfterLoad: true,
	checkServer: func(c *conn) error {
		var v string
		if err := c.queryRow("SHOW server_version_num").Scan(&v); err != nil {
			return err
		}
		if n, _ := strconv.Atoi(v); n < 120000 {
			return fmt.Errorf("PostgreSQL server version %s is too old: cairn needs 12 or later", v)
		}
		return nil
	},
	explain: func(err error) error {
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			switch pe.Code {
			case "28P01", "28000":
				return fmt.Errorf("PostgreSQL refused the login (%s): check the user and password (META_PASSWORD)", pe.Message)
			case "3D000":
				return fmt.Errorf("PostgreSQL has no such database (%s): create it first, e.g. createdb", pe.Message)
			}
		}
		return err
	},
}

// connectionError reports errors of a connection that broke or could not
// be made.
func connectionError(err error) bool {
	var ne *net.OpError
	var errno syscall.Errno
	return errors.Is(err, driver.ErrBadConn) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.As(err, &ne) || (errors.As(err, &errno) && networkErrno(errno))
}

// networkErrno reports the errnos of a failing connection, which no
// metadata operation returns as its own result.
func networkErrno(e syscall.Errno) bool {
	switch e {
	case syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.ECONNABORTED, syscall.EPIPE,
		syscall.ETIMEDOUT, syscall.EHOSTUNREACH, syscall.ENETUNREACH:
		return true
	}
	return false
}

// OpenPostgres connects to postgres://user[:password]@host[:port]/db
// [?sslmode=...&host=/unix/socket/dir&max_open_conns=N&max_idle_conns=N].
// The password may instead come from META_PASSWORD. Connecting fails
// within connect_timeout (default 5 s).
func OpenPostgres(rawURL string) (*Engine, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return nil, fmt.Errorf("malformed PostgreSQL URL %q: expected postgres://user[:password]@host[:5432]/database", rawURL)
	}
	q := u.Query()
	pool, err := poolLimits(q)
	if err != nil {
		return nil, fmt.Errorf("PostgreSQL URL %q: %v", redact(u), err)
	}
	if q.Get("connect_timeout") == "" {
		q.Set("connect_timeout", "5")
	}
	u.RawQuery = q.Encode()
	if pw := os.Getenv("META_PASSWORD"); pw != "" && u.User != nil {
		if _, set := u.User.Password(); !set {
			u.User = url.UserPassword(u.User.Username(), pw)
		}
	}
	cfg, err := pgx.ParseConfig(u.String())
	if err != nil {
		return nil, fmt.Errorf("PostgreSQL URL %q: %v", redact(u), err)
	}
	db := stdlib.OpenDB(*cfg)
	pool.apply(db)
	return newEngine(db, &postgresDialect), nil
}

// redact hides a URL's password for error messages.
func redact(u *url.URL) string { return u.Redacted() }

// poolSettings are the connection pool limits a URL may set.
type poolSettings struct{ open, idle int }

func poolLimits(q url.Values) (poolSettings, error) {
	p := poolSettings{open: 32, idle: 8}
	for key, dst := range map[string]*int{"max_open_conns": &p.open, "max_idle_conns": &p.idle} {
		if v := q.Get(key); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return p, fmt.Errorf("%s=%q is not a count", key, v)
			}
			*dst = n
		}
		q.Del(key)
	}
	return p, nil
}

func (p poolSettings) apply(db interface {
	SetMaxOpenConns(int)
	SetMaxIdleConns(int)
	SetConnMaxIdleTime(time.Duration)
}) {
	db.SetMaxOpenConns(p.open)
	db.SetMaxIdleConns(p.idle)
	db.SetConnMaxIdleTime(5 * time.Minute)
}
