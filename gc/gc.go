package gc

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"cairn/chunk"
	"cairn/meta"
	"cairn/object"
)

// DefaultMinAge is how old an unreferenced object must be before it counts
// as leaked: far longer than any upload waits for its commit.
const DefaultMinAge = time.Hour

// DefaultWorkers is how many objects are deleted at once.
const DefaultWorkers = 16

// listPage is how many keys one List call returns.
const listPage = 1000

// Options say what Collect does.
type Options struct {
	// MinAge is how long before the snapshot an unreferenced object must
	// have been written to count as leaked (DefaultMinAge when 0; a
	// negative value is refused).
	MinAge time.Duration
	// Delete removes the leaked objects and empties the dead-slice queue;
	// without it Collect only counts.
	Delete  bool
	Workers int // DefaultWorkers when 0
	// Progress, when set, is kept up to date as Collect runs.
	Progress *Progress
}

// Progress counts what Collect has done so far; safe to read while it
// runs.
type Progress struct {
	Records atomic.Int64 // metadata records read
	Listed  atomic.Int64 // objects listed
	Leaked  atomic.Int64
	Deleted atomic.Int64
}

// Count is a number of objects (or slices) and their bytes.
type Count struct {
	Objects int64
	Bytes   int64
}

func (c *Count) add(size int64) {
	c.Objects++
	c.Bytes += size
}

// Result is what Collect found and did.
type Result struct {
	Snapshot  time.Time // T of the safety rule
	NextSlice uint64    // C of the safety rule
	Listed    Count     // every object under chunk.KeyPrefix
	// Leaked: objects of slices nothing references, old enough.
	Leaked Count
	// Young: objects of unreferenced slices too recent to judge (a write
	// in flight, or one that has not been committed for less than the
	// minimum age), or of slice ids handed out after the snapshot.
	Young Count
	// Dead: objects of slices in the dead-slice queue; DeadSlices is the
	// queue's length and the bytes of its slices at the snapshot.
	Dead       Count
	DeadSlices Count
	// Stray: slices in chunks of inodes that no longer exist (a bug left
	// the chunks behind); their objects count as leaked.
	Stray Count
	// Foreign: keys under chunk.KeyPrefix that are not block keys; left
	// alone.
	Foreign Count
	// Deleted: leaked objects removed; DeadRemoved: dead slices whose
	// blocks were removed and which left the queue.
	Deleted     Count
	DeadRemoved int64
}

// Collect applies the safety rule (see the package comment) to every
// object of the volume in store, whose blocks are blockSize bytes, and
// with opts.Delete removes the leaked objects and then empties the
// dead-slice queue.
func Collect(ctx context.Context, eng meta.Engine, store object.Store, blockSize int, opts Options) (Result, error) {
	var res Result
	if opts.MinAge < 0 {
		return res, fmt.Errorf("the minimum age %v is negative", opts.MinAge)
	}
	if opts.MinAge == 0 {
		opts.MinAge = DefaultMinAge
	}
	if opts.Workers <= 0 {
		opts.Workers = DefaultWorkers
	}
	if opts.Progress == nil {
		opts.Progress = &Progress{}
	}
	refs, err := referenced(ctx, eng, &opts.Progress.Records)
	if err != nil {
		return res, err
	}
	res.Snapshot, res.NextSlice, res.DeadSlices, res.Stray = refs.at, refs.next, refs.deadCount, refs.stray
	cutoff := refs.at.Add(-opts.MinAge)

	doomed := make(chan object.Info)
	var deleteErr error
	var deleted Count
	var mu sync.Mutex
	var wg sync.WaitGroup
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for range opts.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for info := range doomed {
				err := store.Delete(ctx, info.Key)
				mu.Lock()
				if err != nil && deleteErr == nil {
					deleteErr = fmt.Errorf("delete leaked object %s: %w", info.Key, err)
					cancel()
				} else if err == nil {
					deleted.add(info.Size)
					opts.Progress.Deleted.Add(1)
				}
				mu.Unlock()
			}
		}()
	}
	listErr := list(ctx, store, func(info object.Info) bool {
		res.Listed.add(info.Size)
		opts.Progress.Listed.Add(1)
		key, ok := chunk.ParseKey(info.Key)
		switch {
		case !ok:
			res.Foreign.add(info.Size)
		case key.Slice >= refs.next:
			res.Young.add(info.Size)
		case refs.live.Has(key.Slice):
		case refs.dead.Has(key.Slice):
			res.Dead.add(info.Size)
		case !info.ModTime.Before(cutoff):
			res.Young.add(info.Size)
		default:
			res.Leaked.add(info.Size)
			opts.Progress.Leaked.Add(1)
			if opts.Delete {
				select {
				case doomed <- info:
				case <-ctx.Done():
					return false
				}
			}
		}
		return true
	})
	close(doomed)
	wg.Wait()
	res.Deleted = deleted
	if deleteErr != nil {
		return res, deleteErr
	}
	if listErr != nil {
		return res, fmt.Errorf("list the objects of %s: %w", store, listErr)
	}
	if opts.Delete {
		n, err := emptyDeadQueue(ctx, eng, store, blockSize, opts.Workers)
		res.DeadRemoved = n
		if err != nil {
			return res, err
		}
	}
	return res, nil
}

// list calls fn for every object under chunk.KeyPrefix, a page at a
// time, until fn returns false.
func list(ctx context.Context, store object.Store, fn func(object.Info) bool) error {
	after := ""
	for {
		page, err := store.List(ctx, chunk.KeyPrefix, after, listPage)
		if err != nil {
			return err
		}
		for _, info := range page {
			if !fn(info) {
				return ctx.Err()
			}
		}
		if len(page) < listPage {
			return nil
		}
		after = page[len(page)-1].Key
	}
}
