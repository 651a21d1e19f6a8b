package volume

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"cairn/backup"
	"cairn/chunk"
	"cairn/meta"
	"cairn/object"
)

// destroyWorkers is how many objects Destroy deletes at once.
const destroyWorkers = 16

// Destroyed counts what Destroy removed so far.
type Destroyed struct {
	Objects int64
	Bytes   int64
}

// Destroy removes the volume: every object of its block store and its
// metadata backups (the keys under chunk.KeyPrefix and backup.Prefix;
// other objects in the bucket stay), then all its
// metadata (meta.Destroyer). Objects go first so that a run cut short
// leaves a volume that can still be found, and destroyed again. The
// caller makes sure no client uses the volume, or was told to go on
// regardless (destroy --force), and has opened its object store
// (OpenObjects); report, when not nil, is called as objects go.
//
// A client still mounted may have put an object after the first sweep —
// a block it was uploading, a metadata backup it was writing — while the
// metadata was there to commit it to: a second sweep once the metadata is
// gone takes those too.
func (v *Volume) Destroy(ctx context.Context, report func(Destroyed)) (Destroyed, error) {
	var objects, bytes atomic.Int64
	count := func() Destroyed { return Destroyed{Objects: objects.Load(), Bytes: bytes.Load()} }
	destroyer, ok := meta.Capability[meta.Destroyer](v.Engine)
	if !ok {
		return count(), fmt.Errorf("the %s engine cannot destroy a volume", v.Engine.Name())
	}
	if v.Objects == nil {
		return count(), errors.New("destroy: the object store is not open")
	}
	sweep := func() error {
		return v.deleteObjects(ctx, func(size int64) {
			d := Destroyed{Objects: objects.Add(1), Bytes: bytes.Add(size)}
			if report != nil {
				report(d)
			}
		})
	}
	if err := sweep(); err != nil {
		return count(), err
	}
	if err := destroyer.Destroy(ctx); err != nil {
		return count(), fmt.Errorf("remove the metadata of volume %q at %s: %w", v.Format.Name, v.URL, err)
	}
	if err := sweep(); err != nil {
		return count(), fmt.Errorf("%w: %w", ErrMetadataRemoved, err)
	}
	return count(), nil
}

// ErrMetadataRemoved marks a Destroy that failed after the metadata was
// removed (in its second sweep): running it again cannot find the volume,
// and what is left in the bucket must be deleted by hand.
var ErrMetadataRemoved = errors.New("the volume's metadata is removed")

// deleteObjects deletes every object listObjects names, destroyWorkers at
// once, calling deleted with the size of each.
func (v *Volume) deleteObjects(ctx context.Context, deleted func(size int64)) error {
	keys := make(chan object.Info)
	var failed error
	var once sync.Once
	var wg sync.WaitGroup
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for range destroyWorkers {
		wg.Go(func() {
			for info := range keys {
				if err := v.Objects.Delete(ctx, info.Key); err != nil {
					once.Do(func() {
						failed = fmt.Errorf("delete object %s of volume %q: %w", info.Key, v.Format.Name, err)
						cancel()
					})
					continue
				}
				deleted(info.Size)
			}
		})
	}
	listErr := v.listObjects(ctx, keys)
	close(keys)
	wg.Wait()
	if failed != nil {
		return failed
	}
	if listErr != nil {
		return fmt.Errorf("list the objects of volume %q in %s: %w", v.Format.Name, v.Objects, listErr)
	}
	return nil
}

// listObjects sends every object of the block store and every metadata
// backup to keys, a page at a time, until the listings end or ctx is
// cancelled.
func (v *Volume) listObjects(ctx context.Context, keys chan<- object.Info) error {
	for _, prefix := range []string{chunk.KeyPrefix, backup.Prefix} {
		after := ""
		for {
			page, err := v.Objects.List(ctx, prefix, after, 1000)
			if err != nil {
				return err
			}
			if len(page) == 0 {
				break
			}
			for _, info := range page {
				select {
				case keys <- info:
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			after = page[len(page)-1].Key
		}
	}
	return nil
}
