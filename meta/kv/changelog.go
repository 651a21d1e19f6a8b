package kv

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"cairn/meta"
)

var _ meta.ChangeLog = (*Engine)(nil)

// A migration's record is the key M. Its change log is the keys
// L<epoch><number>, one per append, each holding the changes of its
// append (meta.EncodeChange's bytes, each after its length as a uvarint)
// and named by the number of its last change; the sequence is the counter
// "change", whose value is the log's epoch and the last number (2 ×
// uint64), and exists exactly while the record does. An append is one
// key and the sequence, so one transaction however many changes it holds
// (etcd takes 128 operations in one): a mark is visible only once its
// whole append committed. Every log gets a new epoch (the counter
// "changeepoch", kept), so that a log's keys, deleted page by page after
// its record went, can never be mistaken for the next log's. Appends
// update the sequence key, so concurrent appends conflict and are retried
// on its new value: numbers follow commit order.
const (
	tagMigration     = 'M'
	tagChange        = 'L'
	counterChange    = "change"
	counterEpoch     = "changeepoch"
	changeDeletePage = 100 // log keys deleted per transaction
)

func (k keys) migration() []byte { return k.key(tagMigration) }
func (k keys) change(epoch, seq uint64) []byte {
	return k.key(tagChange, u64(epoch), u64(seq))
}

// changeSeq reads the sequence: the log's epoch and last number;
// ErrNoMigration without one.
func (t *txn) changeSeq() (epoch, last uint64, err error) {
	v, err := t.get(t.k.counter(counterChange))
	if err != nil {
		return 0, 0, err
	}
	if v == nil {
		return 0, 0, meta.ErrNoMigration
	}
	if len(v) != 16 {
		return 0, 0, fmt.Errorf("corrupt change log sequence: %d bytes", len(v))
	}
	return be.Uint64(v), be.Uint64(v[8:]), nil
}

func (t *txn) setChangeSeq(epoch, last uint64) {
	t.put(t.k.counter(counterChange), append(u64(epoch), u64(last)...))
}

// Migration implements meta.ChangeLog.
func (e *Engine) Migration(ctx context.Context) ([]byte, error) {
	var rec []byte
	err := e.txn(ctx, func(t *txn) (err error) {
		rec, err = t.get(t.k.migration())
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read the migration record: %w", err)
	}
	return rec, nil
}

// SwapMigration implements meta.ChangeLog.
func (e *Engine) SwapMigration(ctx context.Context, old, next []byte) error {
	if next != nil && len(next) == 0 {
		return fmt.Errorf("an empty migration record: %w", meta.ErrInvalid)
	}
	var dropped, created uint64 // epochs of the log dropped and started
	err := e.txn(ctx, func(t *txn) error {
		dropped, created = 0, 0
		cur, err := t.get(t.k.migration())
		if err != nil {
			return err
		}
		if (old == nil) != (cur == nil) || !bytes.Equal(cur, old) {
			return meta.ErrConflict
		}
		if next != nil {
			t.put(t.k.migration(), next)
		} else {
			t.del(t.k.migration())
		}
		if old != nil && next != nil {
			return nil
		}
		if epoch, _, err := t.changeSeq(); err == nil {
			dropped = epoch
			t.del(t.k.counter(counterChange))
		} else if !errors.Is(err, meta.ErrNoMigration) {
			return err
		}
		if next == nil {
			return nil
		}
		v, err := t.get(t.k.counter(counterEpoch))
		if err != nil {
			return err
		}
		last, err := counterValue(v)
		if err != nil {
			return err
		}
		created = last + 1
		t.put(t.k.counter(counterEpoch), u64(created))
		t.setChangeSeq(created, 0)
		return nil
	})
	if err != nil {
		return fmt.Errorf("replace the migration record: %w", err)
	}
	// The keys of older logs: the one just dropped, or what a migrator
	// that stopped half-way through deleting them left.
	if dropped != 0 {
		return e.deleteChanges(ctx, e.k.change(dropped, 0), e.k.change(dropped+1, 0))
	}
	if created != 0 {
		return e.deleteChanges(ctx, e.k.key(tagChange), e.k.change(created, 0))
	}
	return nil
}

// deleteChanges deletes the log keys in [begin, end), a page per
// transaction.
func (e *Engine) deleteChanges(ctx context.Context, begin, end []byte) error {
	for {
		n := 0
		err := e.txn(ctx, func(t *txn) error {
			pairs, err := t.Scan(begin, end, changeDeletePage)
			n = len(pairs)
			for _, p := range pairs {
				t.Delete(p.Key)
			}
			return err
		})
		if err != nil {
			return fmt.Errorf("delete change log entries: %w", err)
		}
		if n < changeDeletePage {
			return nil
		}
	}
}

// AppendChanges implements meta.ChangeLog, in one transaction.
func (e *Engine) AppendChanges(ctx context.Context, changes []meta.Change) (uint64, error) {
	if len(changes) == 0 {
		return 0, meta.ErrInvalid
	}
	value := encodeChanges(changes)
	var last uint64
	err := e.txn(ctx, func(t *txn) error {
		epoch, end, err := t.changeSeq()
		if err != nil {
			return err
		}
		last = end + uint64(len(changes))
		t.put(t.k.change(epoch, last), value)
		t.setChangeSeq(epoch, last)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("append %d changes: %w", len(changes), err)
	}
	return last, nil
}

// Changes implements meta.ChangeLog. The first key at or above after+1
// holds change after+1: appends are numbered without gaps, and a key is
// named by its append's last change.
func (e *Engine) Changes(ctx context.Context, after uint64, limit int) ([]meta.Change, error) {
	var out []meta.Change
	err := e.txn(ctx, func(t *txn) error {
		out = out[:0]
		epoch, _, err := t.changeSeq()
		if err != nil {
			return err
		}
		pairs, err := t.Scan(t.k.change(epoch, after+1), t.k.change(epoch+1, 0), limit)
		if err != nil {
			return err
		}
		for _, p := range pairs {
			page, err := decodeChanges(be.Uint64(t.k.suffix(p.Key, 8)), p.Value)
			if err != nil {
				return err
			}
			for _, c := range page {
				if c.Seq > after && len(out) < limit {
					out = append(out, c)
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the changes after %d: %w", after, err)
	}
	return out, nil
}

// encodeChanges is the value of one append's key.
func encodeChanges(changes []meta.Change) []byte {
	var value []byte
	for i := range changes {
		body := meta.EncodeChange(&changes[i])
		value = append(binary.AppendUvarint(value, uint64(len(body))), body...)
	}
	return value
}

// decodeChanges decodes the changes of one append, whose last is
// numbered last.
func decodeChanges(last uint64, value []byte) ([]meta.Change, error) {
	var bodies [][]byte
	for len(value) > 0 {
		n, size := binary.Uvarint(value)
		if size <= 0 || uint64(len(value)-size) < n {
			return nil, fmt.Errorf("corrupt change log entry %d: %w", last, meta.ErrIO)
		}
		bodies = append(bodies, value[size:size+int(n)])
		value = value[size+int(n):]
	}
	if uint64(len(bodies)) > last {
		return nil, fmt.Errorf("corrupt change log entry %d: %d changes: %w", last, len(bodies), meta.ErrIO)
	}
	out := make([]meta.Change, len(bodies))
	for i, body := range bodies {
		c, err := meta.DecodeChange(last-uint64(len(bodies)-1-i), body)
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

// ChangesEnd implements meta.ChangeLog.
func (e *Engine) ChangesEnd(ctx context.Context) (uint64, error) {
	var end uint64
	err := e.txn(ctx, func(t *txn) (err error) {
		_, end, err = t.changeSeq()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("read the end of the change log: %w", err)
	}
	return end, nil
}

// TrimChanges implements meta.ChangeLog: it deletes the appends whose
// changes are all numbered up to through, and rewrites the one that holds
// change through with only the changes after it.
func (e *Engine) TrimChanges(ctx context.Context, through uint64) error {
	var epoch uint64
	err := e.txn(ctx, func(t *txn) (err error) {
		epoch, _, err = t.changeSeq()
		if err != nil || through == 1<<64-1 {
			return err
		}
		pairs, err := t.Scan(t.k.change(epoch, through+1), t.k.change(epoch+1, 0), 1)
		if err != nil || len(pairs) == 0 {
			return err
		}
		last := be.Uint64(t.k.suffix(pairs[0].Key, 8))
		page, err := decodeChanges(last, pairs[0].Value)
		if err != nil || len(page) == 0 || page[0].Seq > through {
			return err
		}
		for len(page) > 0 && page[0].Seq <= through {
			page = page[1:]
		}
		t.put(pairs[0].Key, encodeChanges(page))
		return nil
	})
	if err != nil {
		return fmt.Errorf("trim the change log through %d: %w", through, err)
	}
	end := e.k.change(epoch+1, 0)
	if through < 1<<64-1 {
		end = e.k.change(epoch, through+1)
	}
	return e.deleteChanges(ctx, e.k.change(epoch, 0), end)
}
