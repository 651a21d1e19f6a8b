package meta

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// FloorProber is an optional interface of an Engine: the cheapest durable
// write and the cheapest read its database offers, so that a benchmark can
// set every operation's time beside the floor it cannot go below, measured
// on the same server in the same run.
//
// ProbeWrite makes one durable write of a small record under a scratch key
// (or row) that the volume does not use: one request, acknowledged with the
// durability the engine runs every commit at (Redis: the server's own
// appendfsync; SQL: one autocommit statement at the database's, or SQLite's
// synchronous, setting; etcd: one Put through Raft; Badger: one committed
// transaction at the engine's sync setting). ProbeRead makes one plain read
// of that record (one GET, one indexed SELECT), of a record that may not
// exist yet. Neither touches the volume's files, counters or usage; both
// are safe for concurrent use, also with every Engine method. The first
// call may prepare the scratch place (a table) and be slower.
type FloorProber interface {
	ProbeWrite(ctx context.Context) error
	ProbeRead(ctx context.Context) error
}

// MeasureFloor times p: tasks goroutines each make ops probe writes, then
// ops probe reads, and it returns the wall time of all the writes and of
// all the reads (divide by ops for the time of one at that concurrency).
func MeasureFloor(ctx context.Context, p FloorProber, tasks, ops int) (write, read time.Duration, err error) {
	if write, err = timeTasks(ctx, tasks, ops, p.ProbeWrite); err != nil {
		return 0, 0, err
	}
	read, err = timeTasks(ctx, tasks, ops, p.ProbeRead)
	return write, read, err
}

// MeasureListing times what engine e itself costs to list directory dir
// with every entry's attributes, as a mount lists it: Readdir with plus,
// in pages of page entries, until a short page. tasks goroutines each make
// ops listings; it returns the wall time of all of them (divide by ops
// for one listing at that concurrency) and how many entries a listing
// found. It is the floor of a readdir through the mount, where one read
// of one key is not.
func MeasureListing(ctx context.Context, e Engine, dir Ino, page, tasks, ops int) (time.Duration, int, error) {
	var entries atomic.Int64
	list := func(ctx context.Context) error {
		n, after := 0, ""
		for {
			es, err := e.Readdir(ctx, dir, after, page, true)
			if err != nil {
				return fmt.Errorf("list inode %d: %w", dir, err)
			}
			n += len(es)
			if len(es) < page {
				entries.Store(int64(n))
				return nil
			}
			after = es[len(es)-1].Name
		}
	}
	d, err := timeTasks(ctx, tasks, ops, list)
	return d, int(entries.Load()), err
}

// timeTasks runs probe ops times in each of tasks goroutines and returns
// the wall time of all of them.
func timeTasks(ctx context.Context, tasks, ops int, probe func(context.Context) error) (time.Duration, error) {
	errs := make([]error, tasks)
	var wg sync.WaitGroup
	start := time.Now()
	for t := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range ops {
				if errs[t] = probe(ctx); errs[t] != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	return time.Since(start), errors.Join(errs...)
}
