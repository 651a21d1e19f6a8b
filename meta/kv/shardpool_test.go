package kv

import (
	"context"
	"sync"
	"testing"

	"cairn/meta"
)

// Transactions of one engine that run at once charge usage to different
// shards, whatever inodes they change, so they never conflict on a usage
// key; one more than there are shards charges its inode's own.
func TestTransactionsAtOnceChargeDifferentShards(t *testing.T) {
	e := newMem(t)
	ctx := context.Background()
	inside := make(chan int)
	release := make(chan struct{})
	var wg sync.WaitGroup
	run := func() {
		defer wg.Done()
		err := e.txn(ctx, func(t *txn) error {
			inside <- t.usageShard(meta.RootIno)
			<-release
			return nil
		})
		if err != nil {
			t.Error(err)
		}
	}
	for range usageShards + 1 {
		wg.Add(1)
		go run()
	}
	seen := map[int]int{}
	for range usageShards + 1 {
		seen[<-inside]++
	}
	close(release)
	wg.Wait()
	if len(seen) != usageShards {
		t.Fatalf("%d transactions at once charged %d shards (%v), want all %d", usageShards+1, len(seen), seen, usageShards)
	}
	if seen[int(meta.RootIno%usageShards)] != 2 {
		t.Errorf("the transaction that found no free shard did not charge its inode's own: %v", seen)
	}
}
