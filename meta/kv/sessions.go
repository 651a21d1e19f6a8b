package kv

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"cairn/meta"
)

func (e *Engine) NewSession(ctx context.Context, info meta.SessionInfo) (uint64, error) {
	sid, err := e.next(ctx, counterSession, 1)
	if err != nil {
		return 0, fmt.Errorf("new session: %w", err)
	}
	info.ID = sid
	if info.Started.IsZero() {
		info.Started = time.Now()
	}
	info.Heartbeat = time.Now()
	data, err := json.Marshal(info)
	if err == nil {
		err = e.txn(ctx, func(t *txn) error {
			t.put(t.k.session(sid), data)
			return nil
		})
	}
	if err != nil {
		return 0, fmt.Errorf("new session: %w", err)
	}
	return sid, nil
}

func (e *Engine) Heartbeat(ctx context.Context, sid uint64) error {
	err := e.txn(ctx, func(t *txn) error {
		v, err := t.get(t.k.session(sid))
		if err != nil {
			return err
		}
		if v == nil {
			return meta.ErrNotFound
		}
		var info meta.SessionInfo
		if err := json.Unmarshal(v, &info); err != nil {
			return fmt.Errorf("corrupt session record: %w", err)
		}
		info.Heartbeat = time.Now()
		data, err := json.Marshal(info)
		if err != nil {
			return err
		}
		t.put(t.k.session(sid), data)
		return nil
	})
	if err != nil {
		return fmt.Errorf("heartbeat of session %d: %w", sid, err)
	}
	return nil
}

func (e *Engine) ListSessions(ctx context.Context) ([]meta.SessionInfo, error) {
	var out []meta.SessionInfo
	err := e.txn(ctx, func(t *txn) error {
		out = nil
		b, end := t.k.sessionRange()
		kvs, err := t.scanAll(b, end, 256)
		if err != nil {
			return err
		}
		for _, kv := range kvs {
			var info meta.SessionInfo
			if err := json.Unmarshal(kv.Value, &info); err != nil {
				return fmt.Errorf("corrupt session record: %w", err)
			}
			out = append(out, info)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	return out, nil
}

func (e *Engine) CleanStaleSessions(ctx context.Context, before time.Time) (int, error) {
	sessions, err := e.ListSessions(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, s := range sessions {
		if s.Heartbeat.Before(before) {
			if err := e.CloseSession(ctx, s.ID); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}

// sessionBatch bounds the keys one step of CloseSession handles.
const sessionBatch = 64

func (e *Engine) CloseSession(ctx context.Context, sid uint64) error {
	if err := e.releaseSessionLocks(ctx, sid); err != nil {
		return fmt.Errorf("close session %d: %w", sid, err)
	}
	for {
		var inos []meta.Ino
		err := e.txn(ctx, func(t *txn) error {
			inos = nil
			b, end := t.k.perSession(tagOrphan, sid)
			kvs, err := t.Scan(b, end, sessionBatch)
			for _, kv := range kvs {
				inos = append(inos, meta.Ino(be.Uint64(t.k.suffix(kv.Key, 8))))
			}
			return err
		})
		if err != nil {
			return fmt.Errorf("close session %d: %w", sid, err)
		}
		if len(inos) == 0 {
			break
		}
		for _, ino := range inos {
			if err := e.ReleaseOrphan(ctx, sid, ino); err != nil {
				return fmt.Errorf("close session %d: %w", sid, err)
			}
		}
	}
	err := e.txn(ctx, func(t *txn) error {
		t.del(t.k.session(sid))
		return nil
	})
	if err != nil {
		return fmt.Errorf("close session %d: %w", sid, err)
	}
	return nil
}

// releaseSessionLocks drops every flock and POSIX lock session sid holds.
func (e *Engine) releaseSessionLocks(ctx context.Context, sid uint64) error {
	for {
		done := false
		err := e.txn(ctx, func(t *txn) error {
			b, end := t.k.perSession(tagLockRef, sid)
			kvs, err := t.Scan(b, end, sessionBatch/2)
			if err != nil {
				return err
			}
			done = len(kvs) == 0
			for _, kv := range kvs {
				rest := t.k.suffix(kv.Key, 8)
				ino, kind := meta.Ino(be.Uint64(rest)), rest[8]
				v, err := t.get(t.k.inode(ino, kind))
				if err != nil {
					return err
				}
				rs, err := decodeLocks(v)
				if err != nil {
					return err
				}
				kept := rs[:0]
				for _, r := range rs {
					if r.Session != sid {
						kept = append(kept, r)
					}
				}
				if v != nil {
					t.setLocks(ino, kind, sid, kept)
				}
				t.del(kv.Key)
			}
			return nil
		})
		if err != nil || done {
			return err
		}
	}
}

// releaseBatch bounds the slice records one step of ReleaseOrphan drops,
// so that no transaction outgrows the store's limits (etcd: 128 operations;
// each record may cost a reference update and a dead-slice entry).
const releaseBatch = 40

func (e *Engine) ReleaseOrphan(ctx context.Context, sid uint64, ino meta.Ino) error {
	for {
		done := false
		err := e.txn(ctx, func(t *txn) (err error) {
			done, err = t.releaseStep(sid, ino)
			return err
		})
		if err != nil {
			return fmt.Errorf("release orphan inode %d of session %d: %w", ino, sid, err)
		}
		if done {
			return nil
		}
	}
}

// releaseStep deletes part of an orphan: one scan of the inode's range
// finds its chunks first (they sort first), then its other keys; the last
// step, which sees the whole rest, removes the inode from Usage.
func (t *txn) releaseStep(sid uint64, ino meta.Ino) (done bool, err error) {
	if err := t.prefetch(t.k.orphan(sid, ino), t.usageKey(ino)); err != nil {
		return false, err
	}
	if v, err := t.get(t.k.orphan(sid, ino)); err != nil || v == nil {
		return true, err
	}
	begin, end := t.k.inodeRange(ino)
	kvs, err := t.Scan(begin, end, releaseBatch)
	if err != nil {
		return false, err
	}
	sub := len(t.k.attr(ino)) - 1
	var chunks []KeyValue
	for _, kv := range kvs {
		if kv.Key[sub] == subChunk {
			chunks = append(chunks, kv)
		}
	}
	if len(chunks) > 0 {
		return false, t.dropChunkKeys(chunks, releaseBatch)
	}
	last := len(kvs) < releaseBatch
	for _, kv := range kvs {
		if kv.Key[sub] != subAttr {
			t.del(kv.Key)
			continue
		}
		if !last {
			continue // kept for the last step, which needs the length
		}
		a, err := decodeAttr(kv.Value)
		if err != nil {
			return false, fmt.Errorf("inode %d: %w", ino, err)
		}
		t.addUsage(ino, -spaceOf(&a), -1)
		t.del(kv.Key)
	}
	if last {
		t.del(t.k.orphan(sid, ino))
	}
	return last, nil
}
