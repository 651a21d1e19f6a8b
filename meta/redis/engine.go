package redis

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"cairn/meta"
)

// Engine is a volume's metadata in one Redis database. Each method is one
// Lua script (or one plain read), atomic on the server. A request that
// fails on the network is not resent: a script that may have run is never
// run twice, so the caller sees the error instead.
type Engine struct {
	rdb     *goredis.Client
	url     string // as given to Open, to open another client in tests
	prefix  string
	where   string
	scripts map[string]*script
	stats   *counters
	server  ServerInfo
	log     *slog.Logger
}

var (
	_ meta.Engine    = (*Engine)(nil)
	_ meta.Describer = (*Engine)(nil)
)

// Open connects to the server rawURL names (see parseURL) and checks that
// it is a Redis server that keeps what it is given: it refuses a server
// that may evict keys, and warns when it does not persist every write.
func Open(ctx context.Context, rawURL string) (*Engine, error) {
	c, err := parseURL(rawURL)
	if err != nil {
		return nil, err
	}
	scripts, err := loadScripts()
	if err != nil {
		return nil, fmt.Errorf("load Lua scripts: %w", err)
	}
	e := &Engine{url: rawURL, prefix: c.prefix, where: c.where, scripts: scripts, stats: &counters{}, log: slog.Default()}
	quietGoRedis()
	e.rdb = goredis.NewClient(c.opts)
	e.rdb.AddHook(rttHook{e.stats})
	// Whatever answers must answer soon: a server that accepts and stays
	// silent is not one to wait for.
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := e.checkServer(ctx); err != nil {
		e.rdb.Close()
		return nil, err
	}
	if err := e.loadAll(ctx); err != nil {
		e.rdb.Close()
		return nil, err
	}
	return e, nil
}

// Name is the engine's scheme.
func (e *Engine) Name() string { return "redis" }

// Stats reports the requests sent and the scripts re-sent after the
// server had lost them from its cache.
func (e *Engine) Stats() meta.Stats {
	return meta.Stats{RoundTrips: e.stats.roundTrips.Load(), Retries: e.stats.retries.Load()}
}

// Close releases the connections.
func (e *Engine) Close() error { return e.rdb.Close() }

// key names a key of the volume; the scripts build the same names.
func (e *Engine) key(kind string, n uint64) string {
	return string(appendKey(make([]byte, 0, len(e.prefix)+len(kind)+21), e.prefix, kind, n))
}

// appendKey appends the name of key kind n of the volume under prefix.
func appendKey(b []byte, prefix, kind string, n uint64) []byte {
	return strconv.AppendUint(append(append(append(b, prefix...), ':'), kind...), n, 10)
}
