package fsck

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"cairn/chunk"
	"cairn/meta"
	"cairn/object"
)

// checkObjects asks the store, workers at a time, for every object of the
// slices that files under sc use, and reports each file that lost one.
func (s *scan) checkObjects(ctx context.Context, store object.Store, blockSize, workers int, sc *scope, checked *atomic.Uint64, total *atomic.Uint64) error {
	var wanted []sliceRef
	for _, r := range s.refs {
		if sc.has(r.ino) {
			wanted = append(wanted, r)
		}
	}
	slices.SortFunc(wanted, func(a, b sliceRef) int {
		switch {
		case a.id != b.id:
			return cmpUint(a.id, b.id)
		case a.size != b.size:
			return cmpUint(uint64(a.size), uint64(b.size))
		}
		return cmpUint(uint64(a.ino), uint64(b.ino))
	})
	first := func(i int) bool { // the first record of its slice
		return i == 0 || wanted[i].id != wanted[i-1].id || wanted[i].size != wanted[i-1].size
	}
	var blocks uint64
	for i, r := range wanted {
		if first(i) {
			blocks += (uint64(r.size) + uint64(blockSize) - 1) / uint64(blockSize)
		}
	}
	total.Store(blocks)

	missing := map[string]bool{}
	var mu sync.Mutex
	var failed error
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	work := make(chan string)
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for key := range work {
				_, err := store.Head(ctx, key)
				checked.Add(1)
				mu.Lock()
				switch {
				case errors.Is(err, object.ErrNotExist):
					missing[key] = true
				case err != nil && failed == nil:
					failed = fmt.Errorf("look up object %s in %s: %w", key, store, err)
					cancel()
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for i, r := range wanted {
		if !first(i) {
			continue
		}
		// The keys of one slice at a time: never the keys of all.
		for _, key := range chunk.SliceKeys(r.id, r.size, blockSize) {
			select {
			case work <- key:
			case <-ctx.Done():
				break feed
			}
		}
	}
	close(work)
	wg.Wait()
	if failed != nil {
		return failed
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	s.reportMissing(wanted, missing, blockSize)
	return nil
}

// reportMissing adds one problem per file that uses a missing object.
func (s *scan) reportMissing(refs []sliceRef, missing map[string]bool, blockSize int) {
	if len(missing) == 0 {
		return
	}
	lost := map[meta.Ino][]string{}
	var order []meta.Ino
	for _, r := range refs {
		for _, key := range chunk.SliceKeys(r.id, r.size, blockSize) {
			if !missing[key] {
				continue
			}
			if _, seen := lost[r.ino]; !seen {
				order = append(order, r.ino)
			}
			if !slices.Contains(lost[r.ino], key) {
				lost[r.ino] = append(lost[r.ino], key)
			}
		}
	}
	for _, ino := range order {
		keys := lost[ino]
		detail := fmt.Sprintf("object %s is missing", keys[0])
		if len(keys) > 1 {
			detail = fmt.Sprintf("%d objects are missing, %s the first", len(keys), keys[0])
		}
		p := Problem{Kind: MissingObject, Ino: ino, Detail: detail}
		if n := s.nodes[ino]; n != nil && n.entries > 0 {
			p.parent, p.name = n.inDir, n.name
		}
		s.add(p)
	}
}

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
