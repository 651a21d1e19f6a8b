package meta

import (
	"context"
	"errors"
	"sync"
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
	run := func(probe func(context.Context) error) (time.Duration, error) {
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
	if write, err = run(p.ProbeWrite); err != nil {
		return 0, 0, err
	}
	read, err = run(p.ProbeRead)
	return write, read, err
}
