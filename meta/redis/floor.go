package redis

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"cairn/meta"
)

var _ meta.FloorProber = (*Engine)(nil)

// floorKey is the scratch key of the floor probes, under the volume's
// prefix; no script reads or writes it.
func (e *Engine) floorKey() string { return e.prefix + ":floor" }

// ProbeWrite is one SET: the server makes it as durable as every script's
// writes (with AOF appendfsync always, written and fsync'd before the
// answer).
func (e *Engine) ProbeWrite(ctx context.Context) error {
	v := strconv.FormatInt(time.Now().UnixNano(), 10)
	if err := e.rdb.Set(ctx, e.floorKey(), v, 0).Err(); err != nil {
		return fmt.Errorf("redis floor write on %s: %w", e.where, err)
	}
	return nil
}

// ProbeRead is one GET.
func (e *Engine) ProbeRead(ctx context.Context) error {
	err := e.rdb.Get(ctx, e.floorKey()).Err()
	if err != nil && !errors.Is(err, goredis.Nil) {
		return fmt.Errorf("redis floor read on %s: %w", e.where, err)
	}
	return nil
}
