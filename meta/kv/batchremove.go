package kv

import (
	"context"
	"fmt"

	"cairn/meta"
)

var _ meta.BatchRemover = (*Engine)(nil)

// A batch removal fits each transaction in etcd's limits of 128 writes
// and 128 compares (one per key read): the parent's attributes and its
// usage shard are read and written besides the names' own keys, which are counted as they are planned; a name is taken only when
// its worst case still fits.
const (
	batchWrites   = 110 // writes of one transaction, the parent's and usage's included
	batchReads    = 120 // keys one transaction reads
	inlineKeys    = 16  // an inode with more keys than this is left an orphan
	inlineRecords = 16  // likewise for slice records (two writes each)
	batchNames    = 32  // names read ahead by one transaction
	nameWrites    = 1 + inlineKeys + 2*inlineRecords
	nameReads     = inlineKeys + 1 + inlineRecords
)

// RemoveEntries removes non-directory entries of one directory, as many
// per transaction as fit, deleting at once the inodes that lose their
// last link and are small enough; bigger ones become orphans of sid (see
// meta.BatchRemover).
func (e *Engine) RemoveEntries(ctx context.Context, cred meta.Cred, parent meta.Ino, names []string, sid uint64) (meta.BatchRemoval, error) {
	var out meta.BatchRemoval
	for len(names) > 0 {
		var step meta.BatchRemoval
		var done int
		err := e.txn(ctx, func(t *txn) (err error) {
			step, done, err = t.removeEntries(cred, parent, names, sid)
			return err
		})
		if err != nil {
			return out, fmt.Errorf("remove %d entries of inode %d: %w", len(names), parent, err)
		}
		out.Removed += step.Removed
		out.Orphans = append(out.Orphans, step.Orphans...)
		names = names[done:]
	}
	return out, nil
}

// removeEntries removes the first names that fit in one transaction and
// says how many it went through.
func (t *txn) removeEntries(cred meta.Cred, parent meta.Ino, names []string, sid uint64) (meta.BatchRemoval, int, error) {
	var out meta.BatchRemoval
	names = names[:min(len(names), batchNames)]
	keys := [][]byte{t.k.attr(parent), t.usageKey(parent)}
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
	inos := make([]meta.Ino, len(names))
	var attrKeys [][]byte
	for i, name := range names {
		_, ino, ok, err := t.entry(parent, name)
		if err != nil {
			return out, 0, err
		}
		if ok {
			inos[i] = ino
			attrKeys = append(attrKeys, t.k.attr(ino))
		}
	}
	if err := t.prefetch(attrKeys...); err != nil {
		return out, 0, err
	}
	ts := now()
	writes, reads, done := 2, len(keys)+len(attrKeys), 0
	for i, name := range names {
		if i > 0 && (writes+nameWrites > batchWrites || reads+nameReads > batchReads) {
			break
		}
		done = i + 1
		ino := inos[i]
		if ino == 0 {
			continue
		}
		a, err := t.attr(ino)
		if err != nil {
			return out, 0, err
		}
		if err := meta.MayDelete(&pa, &a, cred); err != nil {
			return out, 0, err
		}
		if a.IsDir() {
			return out, 0, meta.ErrIsDir
		}
		t.del(t.k.entry(parent, name))
		out.Removed++
		if a.Nlink > 1 {
			t.dropLink(sid, ino, &a, ts)
			writes += 2
			continue
		}
		inline, wrote, read, err := t.deleteSmallInode(ino, &a, parent)
		if err != nil {
			return out, 0, err
		}
		if !inline {
			t.dropLink(sid, ino, &a, ts)
			out.Orphans = append(out.Orphans, ino)
			wrote = 2
		}
		writes += 1 + wrote
		reads += read
	}
	if out.Removed > 0 {
		pa.Mtime, pa.Ctime = ts, ts
		t.setAttr(parent, &pa)
	}
	return out, done, nil
}

// deleteSmallInode deletes an inode that lost its last link, with its
// chunks, when it has at most inlineKeys keys and inlineRecords slice
// records; it reports whether it did and how many keys it wrote and read.
// Its usage goes to charge's shard, the directory's: one usage key per
// batch, so that batches in other directories rarely conflict on one
// (a shard may go below zero; only the sum of the shards means anything).
func (t *txn) deleteSmallInode(ino meta.Ino, a *meta.Attr, charge meta.Ino) (inline bool, writes, reads int, err error) {
	begin, end := t.k.inodeRange(ino)
	kvs, err := t.Scan(begin, end, inlineKeys+1)
	if err != nil {
		return false, 0, 0, err
	}
	if len(kvs) > inlineKeys {
		return false, 0, len(kvs), nil
	}
	sub := len(t.k.attr(ino)) - 1
	var records []meta.Slice
	for _, kv := range kvs {
		if kv.Key[sub] != subChunk {
			continue
		}
		list, err := meta.DecodeSliceRecords(kv.Value)
		if err != nil {
			return false, 0, 0, fmt.Errorf("inode %d: %w", ino, err)
		}
		records = append(records, list...)
	}
	if len(records) > inlineRecords {
		return false, 0, len(kvs), nil
	}
	for _, kv := range kvs {
		t.del(kv.Key)
	}
	if err := t.changeRefs(nil, records); err != nil {
		return false, 0, 0, err
	}
	t.addUsage(charge, -spaceOf(a), -1)
	return true, len(kvs) + 2*len(records), len(kvs) + len(records), nil
}
