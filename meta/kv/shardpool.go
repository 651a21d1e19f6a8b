package kv

import (
	"context"
	"math/rand/v2"
)

// shardPool lends the usage shards to the transactions that charge many
// inodes' usage at once (batch removals), one transaction per shard at a
// time: two such transactions of one engine never conflict on a usage
// key. Each engine lends them in its own random order, so that engines in
// different processes seldom start on the same shard.
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

// give returns a shard taken.
func (p *shardPool) give(s int) { p.free <- s }
