package redis

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"

	goredis "github.com/redis/go-redis/v9"
)

// ServerInfo is what the engine learnt of its server when it connected,
// for 'cairn status'.
type ServerInfo struct {
	Version        string // redis_version (Valkey and KeyDB report theirs too)
	AOF            bool   // append-only file on
	Fsync          string // appendfsync: always, everysec, no ("" when unknown)
	EvictionPolicy string // maxmemory-policy
}

// Durability describes in a few words how much a crash may lose.
func (s ServerInfo) Durability() string {
	switch {
	case !s.AOF:
		return "AOF off: a crash loses writes since the last snapshot"
	case s.Fsync == "always":
		return "AOF, fsync always"
	case s.Fsync == "":
		return "AOF, fsync policy unknown"
	default:
		return "AOF, fsync " + s.Fsync
	}
}

// Server reports the server's version and durability settings.
func (e *Engine) Server() ServerInfo { return e.server }

// Describe is what 'cairn status' may show of the engine beyond meta.Stats.
func (e *Engine) Describe() map[string]string {
	return map[string]string{
		"server":          "redis " + e.server.Version,
		"durability":      e.server.Durability(),
		"eviction_policy": e.server.EvictionPolicy,
		"address":         e.where,
		"prefix":          e.prefix,
	}
}

// checkServer asks the server about itself (which also proves that it is
// one, that the password is right and the database exists) and applies
// the safety rules: eviction is refused, weak durability warned about.
func (e *Engine) checkServer(ctx context.Context) error {
	text, err := e.rdb.Info(ctx).Result()
	if err != nil {
		return e.connectError(err)
	}
	info := parseInfo(text)
	s := ServerInfo{Version: info["redis_version"], AOF: info["aof_enabled"] == "1", EvictionPolicy: info["maxmemory_policy"]}
	if v, ok := info["valkey_version"]; ok {
		s.Version = v + " (valkey)"
	}
	if cfg, err := e.rdb.ConfigGet(ctx, "appendfsync").Result(); err == nil {
		s.Fsync = cfg["appendfsync"]
	}
	e.server = s
	if s.EvictionPolicy != "" && s.EvictionPolicy != "noeviction" {
		return fmt.Errorf("Redis at %s has maxmemory-policy %q, which may evict cairn's keys and corrupt the volume: set maxmemory-policy noeviction (CONFIG SET maxmemory-policy noeviction, and in redis.conf)", e.where, s.EvictionPolicy)
	}
	if !s.AOF {
		e.log.Warn("Redis persistence: the append-only file is off, so a crash loses recent metadata changes; enable it with 'appendonly yes' and 'appendfsync always' or 'everysec'", "server", e.where)
	} else if s.Fsync == "no" {
		e.log.Warn("Redis persistence: appendfsync is 'no', so a crash may lose recent metadata changes; use 'appendfsync always' or 'everysec'", "server", e.where)
	}
	return nil
}

// connectError says in one line why the first request failed.
func (e *Engine) connectError(err error) error {
	msg := err.Error()
	var op *net.OpError
	switch {
	case strings.Contains(msg, "WRONGPASS"), strings.Contains(msg, "NOAUTH"), strings.Contains(msg, "invalid password"),
		strings.Contains(msg, "invalid username-password"):
		return fmt.Errorf("Redis at %s refused the credentials (%s): check the password in the URL, REDIS_PASSWORD or META_PASSWORD", e.where, msg)
	case strings.Contains(msg, "DB index is out of range"), strings.Contains(msg, "invalid DB index"):
		return fmt.Errorf("Redis at %s has no such database (%s): use a database number below its 'databases' setting", e.where, msg)
	case strings.Contains(msg, "tls:") || strings.Contains(msg, "x509:"):
		return fmt.Errorf("TLS with Redis at %s failed: %v (check tls-ca-cert-file, tls-cert-file and tls-key-file)", e.where, err)
	case errors.As(err, &op) && op.Op == "dial", errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("cannot reach Redis at %s: %v (is redis-server running there?)", e.where, err)
	}
	var rerr goredis.Error
	if errors.As(err, &rerr) {
		return fmt.Errorf("Redis at %s: %s", e.where, msg)
	}
	return fmt.Errorf("%s does not answer like a Redis server: %v", e.where, err)
}

// parseInfo reads INFO's "key:value" lines.
func parseInfo(text string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if ok && !strings.HasPrefix(k, "#") {
			out[k] = v
		}
	}
	return out
}
