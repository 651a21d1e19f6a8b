package kv

import (
	"context"
	"errors"
	"fmt"

	"cairn/meta"
)

var _ meta.BatchRemover = (*Engine)(nil)

// A batch removal fits each transaction in etcd's limits of 128 writes
// and 128 compares (one per key read, one per range scanned). It reads
// the names and their inodes' keys first, all at once, then removes the
// longest run of names whose reads and writes fit, counted from what it
// read: exactly, or more where a count depends on values (a reference
// that drops to zero writes two keys, one that does not one).
const (
	batchWrites   = etcdMaxTxnOps // writes of one transaction, the parent's and usage's included
	batchReads    = etcdMaxTxnOps // keys read and ranges scanned by one transaction
	inlineKeys    = 16            // an inode with more keys than this is left an orphan
	inlineRecords = 16            // likewise for slice records (two writes each)
	batchNames    = 40            // names one transaction tries at most
)

// RemoveEntries removes non-directory entries of one directory, as many
// per transaction as fit, deleting at once the inodes that lose their
// last link and are small enough; bigger ones become orphans of sid (see
// meta.BatchRemover).
func (e *Engine) RemoveEntries(ctx context.Context, cred meta.Cred, parent meta.Ino, names []string, sid uint64) (meta.BatchRemoval, error) {
	var out meta.BatchRemoval
	try := batchNames
	for len(names) > 0 {
		var step meta.BatchRemoval
		var done int
		shard, err := e.shards.take(ctx)
		if err != nil {
			return out, err
		}
		err = e.txn(ctx, func(t *txn) (err error) {
			step, done, err = t.removeEntries(cred, parent, names[:min(len(names), try)], sid, shard)
			return err
		})
		e.shards.give(shard)
		var fewer errFewerNames
		if errors.As(err, &fewer) {
			try = fewer.fit
			continue
		}
		if err != nil {
			return out, fmt.Errorf("remove %d entries of inode %d: %w", len(names), parent, err)
		}
		out.Removed += step.Removed
		out.Orphans = append(out.Orphans, step.Orphans...)
		names = names[done:]
	}
	return out, nil
}

// errFewerNames aborts a transaction whose reads alone exceed what one
// transaction may compare: the first fit names are what to try again.
type errFewerNames struct{ fit int }

func (e errFewerNames) Error() string {
	return fmt.Sprintf("only %d names fit in one transaction", e.fit)
}

// removal is what one name's removal reads and writes.
type removal struct {
	ino      meta.Ino // 0: the name does not exist
	keys     []KeyValue
	inline   bool         // the inode loses its last link and is deleted here
	slices   []meta.Slice // its slice records, when inline
	refReads int          // the reference counts of those slices
	reads    int          // compares: its entry, keys and range, and its refs
	writes   int
}

// removeEntries removes the first names that fit in one transaction and
// says how many it went through. Every name's entry and inode keys are
// read in two requests (one when the etcd cache guessed right); usage is
// charged to shard, which no other batch of this engine uses meanwhile,
// so that batches in other directories do not conflict on it (a shard may
// go below zero; only the sum of the shards means anything).
func (t *txn) removeEntries(cred meta.Cred, parent meta.Ino, names []string, sid uint64, shard int) (meta.BatchRemoval, int, error) {
	var out meta.BatchRemoval
	keys := [][]byte{t.k.attr(parent), t.k.usage(shard)}
	for _, name := range names {
		keys = append(keys, t.k.entry(parent, name))
	}
	if err := t.prefetch(keys...); err != nil {
		return out, 0, err
	}
	pa, err := t.dir(parent)
	if err != nil {
		return out, 0, err
	}
	if err := meta.Access(&pa, cred, meta.MayExec); err != nil {
		return out, 0, err
	}
	plan, err := t.readRemovals(parent, names)
	if err != nil {
		return out, 0, err
	}
	reads, writes := 2, 2 // the parent's attributes and the usage shard
	for _, r := range plan {
		reads += r.reads - r.refReads
	}
	done := 0
	for i, r := range plan {
		if i > 0 && (reads+r.refReads > batchReads || writes+r.writes > batchWrites) {
			break
		}
		reads += r.refReads
		writes += r.writes
		done = i + 1
	}
	if reads > batchReads {
		return out, 0, errFewerNames{fit: max(1, t.fitting(plan))}
	}
	var slices []meta.Slice
	for _, r := range plan[:done] {
		slices = append(slices, r.slices...)
	}
	if err := t.prefetchRefs(slices); err != nil {
		return out, 0, err
	}
	ts := now()
	for i, r := range plan[:done] {
		if r.ino == 0 {
			continue
		}
		// Read again: an earlier name may have been another link to it.
		a, err := t.attr(r.ino)
		if err != nil {
			return out, 0, err
		}
		if err := meta.MayDelete(&pa, &a, cred); err != nil {
			return out, 0, err
		}
		if a.IsDir() {
			return out, 0, meta.ErrIsDir
		}
		t.del(t.k.entry(parent, names[i]))
		out.Removed++
		switch {
		case a.Nlink > 1:
			t.dropLink(sid, r.ino, &a, ts)
		case r.inline:
			for _, kv := range r.keys {
				t.del(kv.Key)
			}
			if err := t.changeRefs(nil, r.slices); err != nil {
				return out, 0, err
			}
			t.addShardUsage(shard, -spaceOf(&a), -1)
		default:
			t.dropLink(sid, r.ino, &a, ts)
			out.Orphans = append(out.Orphans, r.ino)
		}
	}
	if out.Removed > 0 {
		pa.Mtime, pa.Ctime = ts, ts
		t.setAttr(parent, &pa)
	}
	return out, done, nil
}

// readRemovals reads, for every name (whose entry is cached), its inode's
// keys — up to inlineKeys+1 of them — in one request, and counts what
// removing each name in order reads and writes.
func (t *txn) readRemovals(parent meta.Ino, names []string) ([]removal, error) {
	plan := make([]removal, len(names))
	var ranges []ScanRange
	var scanned []int
	for i, name := range names {
		plan[i].reads = 1 // the entry, read whether it exists or not
		_, ino, ok, err := t.entry(parent, name)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		plan[i].ino = ino
		begin, end := t.k.inodeRange(ino)
		ranges = append(ranges, ScanRange{Begin: begin, End: end, Limit: inlineKeys + 1})
		scanned = append(scanned, i)
	}
	found, err := scanMany(t.Tx, ranges)
	if err != nil {
		return nil, err
	}
	links := map[meta.Ino]uint32{} // links left to each inode by the names before
	for j, i := range scanned {
		r := &plan[i]
		r.keys = found[j]
		complete := len(r.keys) <= inlineKeys
		attrKey := string(t.k.attr(r.ino))
		r.reads += len(r.keys) + 1 // its keys, and the range
		hasAttr := false
		for _, kv := range r.keys {
			if string(kv.Key) == attrKey {
				t.cache[attrKey], hasAttr = kv.Value, true
			}
		}
		if !hasAttr && complete {
			t.cache[attrKey] = nil // the entry names a missing inode
		} else if !hasAttr {
			r.reads++ // read on its own below
		}
		a, err := t.attr(r.ino)
		if err != nil {
			return nil, err
		}
		left, seen := links[r.ino]
		if !seen {
			left = a.Nlink
		}
		if left > 0 {
			left--
		}
		links[r.ino] = left
		switch {
		case left > 0:
			r.writes = 2 // the entry, the attributes
		case complete:
			r.slices, err = t.sliceRecords(r.ino, r.keys)
			if err != nil {
				return nil, err
			}
			if len(r.slices) <= inlineRecords {
				r.inline = true
				r.refReads = distinctSlices(r.slices)
				r.reads += r.refReads
				r.writes = 1 + len(r.keys) + 2*r.refReads
				continue
			}
			r.slices = nil
			fallthrough
		default:
			r.writes = 3 // the entry, the attributes, the orphan's marker
		}
	}
	return plan, nil
}

// fitting is how many names of plan fit in one transaction by their reads
// alone.
func (t *txn) fitting(plan []removal) int {
	reads, writes := 2, 2
	for i, r := range plan {
		if reads+r.reads > batchReads || writes+r.writes > batchWrites {
			return i
		}
		reads += r.reads
		writes += r.writes
	}
	return len(plan)
}

// sliceRecords decodes the slice records of an inode's chunk keys.
func (t *txn) sliceRecords(ino meta.Ino, kvs []KeyValue) ([]meta.Slice, error) {
	sub := len(t.k.attr(ino)) - 1
	var records []meta.Slice
	for _, kv := range kvs {
		if kv.Key[sub] != subChunk {
			continue
		}
		list, err := meta.DecodeSliceRecords(kv.Value)
		if err != nil {
			return nil, fmt.Errorf("inode %d: %w", ino, err)
		}
		records = append(records, list...)
	}
	return records, nil
}

// distinctSlices counts the slice ids (holes apart) among records.
func distinctSlices(records []meta.Slice) int {
	seen := map[uint64]bool{}
	for _, s := range records {
		if s.ID != 0 {
			seen[s.ID] = true
		}
	}
	return len(seen)
}

// prefetchRefs reads the reference counts of records in one request.
func (t *txn) prefetchRefs(records []meta.Slice) error {
	var keys [][]byte
	for _, s := range records {
		if s.ID != 0 {
			keys = append(keys, t.k.ref(s.ID))
		}
	}
	return t.prefetch(keys...)
}
