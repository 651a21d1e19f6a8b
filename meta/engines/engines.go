// Package engines opens a metadata engine from the URL a user gives. It is
// the one place that knows every engine family.
package engines

import (
	"context"
	"fmt"
	"strings"

	"cairn/meta"
	"cairn/meta/kv"
	metaredis "cairn/meta/redis"
	metasql "cairn/meta/sql"
)

// Open connects to the engine named by rawURL, e.g. "sqlite3:///var/vol.db"
// or "redis://localhost:6379/1", and returns it behind meta.Checked's
// argument checks. It does not check that a volume is formatted there;
// Engine.Load does.
func Open(rawURL string) (meta.Engine, error) {
	e, err := open(rawURL)
	if err != nil {
		return nil, err
	}
	return meta.Checked(e), nil
}

func open(rawURL string) (meta.Engine, error) {
	scheme, rest, ok := strings.Cut(rawURL, "://")
	if !ok || scheme == "" {
		return nil, fmt.Errorf("malformed metadata URL %q: expected SCHEME://…, e.g. sqlite3:///var/lib/cairn/vol.db", rawURL)
	}
	if rest == "" && scheme != "mem" {
		return nil, fmt.Errorf("malformed metadata URL %q: nothing after %s://", rawURL, scheme)
	}
	switch scheme {
	case "mem":
		return kv.OpenMem(), nil
	case "badger":
		return engine(kv.OpenBadgerURL(rawURL))
	case "etcd":
		return engine(kv.OpenEtcdURL(rawURL))
	case "tikv":
		return engine(kv.OpenTiKVURL(rawURL))
	case "sqlite3":
		return engine(metasql.OpenSQLite(rawURL))
	case "postgres", "postgresql", "mysql":
		return engine(metasql.Open(rawURL))
	case "redis", "rediss", "unix":
		return engine(metaredis.Open(context.Background(), rawURL))
	default:
		return nil, fmt.Errorf("unknown metadata engine %q in %q (supported: %s)", scheme, rawURL, strings.Join(Schemes(), ", "))
	}
}

// engine turns a family's concrete result into an interface value that is
// nil whenever there is an error, never a typed nil a caller could use.
func engine[E meta.Engine](e E, err error) (meta.Engine, error) {
	if err != nil {
		return nil, err
	}
	return e, nil
}

// Schemes lists the URL schemes Open understands.
func Schemes() []string {
	return []string{"mem", "badger", "etcd", "tikv", "sqlite3", "postgres", "postgresql", "mysql", "redis", "rediss", "unix"}
}
