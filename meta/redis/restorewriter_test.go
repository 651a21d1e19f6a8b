package redis

import (
	"context"
	"strconv"
	"testing"

	goredis "github.com/redis/go-redis/v9"
)

// TestRestoreWriter checks what a load relies on while pipelines are in
// flight on several connections: flush returns once the server has done
// every write given before it, and a write the server refused fails the
// load.
func TestRestoreWriter(t *testing.T) {
	e := fresh(t, server(t), 0)
	ctx := context.Background()
	const keys = 5 * pipeCommands * restoreSenders
	w := newRestoreWriter(ctx, e.rdb, "refs")
	for i := range keys {
		key := "k" + strconv.Itoa(i)
		if err := w.do(3, func(p goredis.Pipeliner) { p.Set(ctx, key, i, 0) }); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
	}
	if err := w.flush(); err != nil {
		t.Fatalf("flush: %v", err)
	}
	if n, err := e.rdb.DBSize(ctx).Result(); err != nil || n != keys {
		t.Errorf("after flush the database holds %d keys (%v), want %d", n, err, keys)
	}
	w.close()

	w = newRestoreWriter(ctx, e.rdb, "refs")
	defer w.close()
	// k0 holds a string: SADD to it is refused.
	if err := w.do(3, func(p goredis.Pipeliner) { p.SAdd(ctx, "k0", 1) }); err != nil {
		t.Fatalf("queue: %v", err)
	}
	if err := w.flush(); err == nil {
		t.Errorf("flush after a refused write: no error")
	}
}
