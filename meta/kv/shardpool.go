package kv

import (
	"context"
	"math/rand/v2"
)

// shardPool lends the usage shards to transactions, one transaction per
// shard at a time: two transactions of one engine running at once never
// conflict on a usage key. Those that charge many inodes' usage at once
// (batch removals) wait for a shard; the others take one when one is
// free (see Engine.txn). Each engine lends them in its own random order,
// so that engines in different processes seldom start on the same shard.
type shardPool struct{ free chan int }

func newShardPool() *shardPool {
	p := &shardPool{free: make(chan int, usageShards)}
	for _, s := range rand.Perm(usageShards) {
		p.free <- s
	}
	return p
}

// take waits for a free shard.
func (p *shardPool) take(ctx context.Context) (int, error) {
	select {
	case s := <-p.free:
		return s, nil
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// tryTake takes a free shard without waiting; ok is false when none is.
func (p *shardPool) tryTake() (s int, ok bool) {
	select {
	case s := <-p.free:
		return s, true
	default:
		return 0, false
	}
}

// give returns a shard taken.
func (p *shardPool) give(s int) { p.free <- s }
