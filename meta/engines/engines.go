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
// or "redis://localhost:6379/1". It does not check that a volume is
// formatted there; Engine.Load does.
func Open(rawURL string) (meta.Engine, error) {
	scheme, rest, ok := strings.Cut(rawURL, "://")
	if !ok || scheme == "" {
		return nil, fmt.Errorf("malformed metadata URL %q: expected SCHEME://…, e.g. sqlite3:///var/lib/cairn/vol.db", rawURL)
	}
	_ = rest
	switch scheme {
	case "mem":
		return kv.OpenMem(), nil
	case "badger":
		return kv.OpenBadgerURL(rawURL)
	case "etcd":
		return kv.OpenEtcdURL(rawURL)
	case "tikv":
		return kv.OpenTiKVURL(rawURL)
	case "sqlite3":
		return metasql.OpenSQLite(rawURL)
	case "postgres", "postgresql", "mysql":
		return metasql.Open(rawURL)
	case "redis", "rediss", "unix":
		e, err := metaredis.Open(context.Background(), rawURL)
		if err != nil {
			return nil, err
		}
		return e, nil
	default:
		return nil, fmt.Errorf("unknown metadata engine %q in %q (supported: %s)", scheme, rawURL, strings.Join(Schemes(), ", "))
	}
}

// Schemes lists the URL schemes Open understands.
func Schemes() []string {
	return []string{"mem", "badger", "etcd", "tikv", "sqlite3", "postgres", "postgresql", "mysql", "redis", "rediss", "unix"}
}
