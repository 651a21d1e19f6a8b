package kv

import (
	"context"

	"cairn/meta"
)

// A truncate that cuts off many slice records cannot drop every record's
// reference in its own transaction: on etcd that is two operations per
// record, and a transaction may hold 128. So past refBudget records it
// deletes the chunks and files their records under one Q key; the
// references go in bounded steps before the dead-slice queue is listed
// (drainReleases). Until then the slices only stay alive a little longer.

// refBudget is how many records one transaction releases inline.
const refBudget = 40

// cutChunks deletes the chunks of ino from index from on.
func (t *txn) cutChunks(ino meta.Ino, from uint32) error {
	_, end := t.k.subRange(ino, subChunk)
	kvs, err := t.Scan(t.k.chunk(ino, from), end, 0)
	if err != nil {
		return err
	}
	var gone []meta.Slice
	for _, kv := range kvs {
		list, err := meta.DecodeSliceRecords(kv.Value)
		if err != nil {
			return err
		}
		gone = append(gone, list...)
		t.del(kv.Key)
	}
	if len(gone) <= refBudget {
		return t.changeRefs(nil, gone)
	}
	t.put(t.k.release(ino, now()), meta.EncodeSliceRecords(gone))
	return nil
}

// drainReleases drops the references filed by cutChunks, refBudget
// records per transaction.
func (e *Engine) drainReleases(ctx context.Context) error {
	for {
		done := false
		err := e.txn(ctx, func(t *txn) error {
			b, end := t.k.releaseRange()
			kvs, err := t.Scan(b, end, 1)
			if err != nil || len(kvs) == 0 {
				done = true
				return err
			}
			done = false
			list, err := meta.DecodeSliceRecords(kvs[0].Value)
			if err != nil {
				return err
			}
			n := min(len(list), refBudget)
			if n < len(list) {
				t.put(kvs[0].Key, meta.EncodeSliceRecords(list[n:]))
			} else {
				t.del(kvs[0].Key)
			}
			return t.changeRefs(nil, list[:n])
		})
		if err != nil || done {
			return err
		}
	}
}
