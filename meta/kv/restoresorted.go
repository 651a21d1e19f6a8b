package kv

import (
	"context"
	"io"

	"cairn/meta"
)

// The memory a sorted load buffers before it writes a run, per family of
// keys: inode keys (attributes, entries, chunks, xattrs, symlinks), slice
// references and dead slices. Each family has two such buffers once it
// spills (one filled while the other is sorted). A load of 10 million
// inodes into Badger, the collector's target at 25 while it streamed,
// peaked at 204 MiB with two buffers of 16, 4 and 1 MiB and at 153 MiB
// with two of half that size (one of the larger size: 137-141 MiB).
const (
	sortInodeBytes = 8 << 20
	sortRefBytes   = 2 << 20
	sortDeadBytes  = 512 << 10
)

// restoreSorted is restore for a store that takes its keys in order. It
// refuses a store that holds anything before it reads. A dump's records
// come in any order (by table from SQL, in key order from kv), so it
// reads the whole dump first, sorting each family of keys in
// bounded memory (runs on the store's disk). A dump the reader refuses
// therefore changes nothing at all. Then the store writes the families,
// and transactions the usage, the counters and, last, the settings.
func (e *Engine) restoreSorted(ctx context.Context, r meta.DumpReader, l sortedLoader) error {
	if err := l.startLoad(); err != nil {
		return err
	}
	usage, err := e.sortAndLoad(r, l)
	if eerr := l.endLoad(); err == nil {
		err = eerr
	}
	if err != nil {
		return err
	}
	out := &batch{ctx: ctx, store: e.store, limit: 64, parallel: 1}
	defer out.wait()
	return e.restoreSettings(out, r.Header(), usage)
}

// sortAndLoad reads the dump, sorts its keys and has l write them; it
// returns the volume's usage the dump adds up to.
func (e *Engine) sortAndLoad(r meta.DumpReader, l sortedLoader) (meta.Usage, error) {
	k := e.k
	inodes := newPairSorter(l.sortDir(), sortInodeBytes)
	defer inodes.close()
	refs := newPairSorter(l.sortDir(), sortRefBytes)
	defer refs.close()
	dead := newPairSorter(l.sortDir(), sortDeadBytes)
	defer dead.close()
	tally := meta.NewRestoreTally()
	one := u64(1)
	firstRef := func(s meta.Slice) error { return refs.add(k.ref(s.ID), one) }
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return meta.Usage{}, err
		}
		if err := tally.Record(rec, firstRef); err != nil {
			return meta.Usage{}, err
		}
		key, value, err := k.recordPair(rec)
		if err != nil {
			return meta.Usage{}, err
		}
		family := inodes
		if rec.Kind == meta.DumpDeadSlice {
			family = dead
		}
		if err := family.add(key, value); err != nil {
			return meta.Usage{}, err
		}
	}
	// A shared slice's count replaces the first reference's 1: of equal
	// keys the sorter keeps the last.
	err := tally.Shared(func(s meta.SharedSlice) error { return refs.add(k.ref(s.ID), u64(s.Refs)) })
	if err != nil {
		return meta.Usage{}, err
	}
	// The sort's buffers are no longer needed once the families are on
	// disk: the StreamWriter's table builders take their place.
	for _, family := range []*pairSorter{inodes, refs, dead} {
		if err := family.freeBuffer(); err != nil {
			return meta.Usage{}, err
		}
	}
	// The families in key order of their tags (A, R, Z) so that no two
	// interleave.
	if err := l.loadSorted([]pairFamily{inodes.each, refs.each, dead.each}); err != nil {
		return meta.Usage{}, err
	}
	return tally.Usage(), nil
}
