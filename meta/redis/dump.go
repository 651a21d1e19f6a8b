package redis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	goredis "github.com/redis/go-redis/v9"

	"cairn/meta"
)

var _ meta.Dumper = (*Engine)(nil)

// Dump implements meta.Dumper: it pauses the volume's changes (see
// dumppause.go) and walks the tree from the root, so inodes that only a
// session's orphan list holds are left out by construction.
func (e *Engine) Dump(ctx context.Context, w meta.DumpWriter) error {
	p, err := e.pauseVolume(ctx, pauseTTL)
	if err != nil {
		return fmt.Errorf("dump: pause the volume's changes on %s: %w", e.where, err)
	}
	err = e.dump(ctx, w)
	if lerr := p.lift(context.WithoutCancel(ctx)); lerr != nil && err == nil {
		err = fmt.Errorf("lift the pause: %w", lerr)
	}
	if err != nil {
		return fmt.Errorf("dump the volume on %s: %w", e.where, err)
	}
	return nil
}

func (e *Engine) dump(ctx context.Context, w meta.DumpWriter) error {
	p := e.prefix
	var h meta.DumpHeader
	raw, err := e.rdb.Get(ctx, p+":setting").Bytes()
	if errors.Is(err, goredis.Nil) {
		return meta.ErrNotFormatted
	}
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, &h.Format); err != nil {
		return fmt.Errorf("corrupt volume settings: %w", err)
	}
	counters, err := e.rdb.MGet(ctx, p+":nextino", p+":nextslice").Result()
	if err != nil {
		return err
	}
	next := make([]uint64, 2)
	for i, v := range counters {
		if s, ok := v.(string); ok {
			if next[i], err = strconv.ParseUint(s, 10, 64); err != nil {
				return fmt.Errorf("corrupt counter %q", s)
			}
		}
	}
	h.NextInode, h.NextSlice = next[0]+1, next[1]+1
	if h.Usage, err = e.Usage(ctx); err != nil {
		return err
	}
	if err := w.Header(h); err != nil {
		return err
	}
	d := &dumpWalk{e: e, ctx: ctx, w: w, linked: map[meta.Ino]bool{}, pending: []meta.Ino{meta.RootIno}}
	if err := d.walk(); err != nil {
		return err
	}
	return d.deadSlices()
}

// Restore implements meta.Dumper. It refuses a database that holds any
// key (as Init does), writes the records in pipelines and the volume's
// settings last; on failure it deletes every key of the volume's prefix
// again.
func (e *Engine) Restore(ctx context.Context, r meta.DumpReader) error {
	n, err := e.rdb.DBSize(ctx).Result()
	if err != nil {
		return e.fail("load", err)
	}
	if n > 0 {
		return fmt.Errorf("load into Redis database %s: %w", e.where, meta.ErrDatabaseNotEmpty)
	}
	if err := e.restore(ctx, r); err != nil {
		if werr := e.wipe(context.WithoutCancel(ctx)); werr != nil {
			return fmt.Errorf("load into Redis database %s: %w (and removing what was written failed: %v)", e.where, err, werr)
		}
		return fmt.Errorf("load into Redis database %s: %w", e.where, err)
	}
	return nil
}

func (e *Engine) restore(ctx context.Context, r meta.DumpReader) error {
	w := newRestoreWriter(ctx, e.rdb, e.prefix)
	defer w.close()
	tally := meta.NewRestoreTally()
	firstRef := func(s meta.Slice) error { return w.ref(s.ID, 1) }
	var list []span // a chunk's key and slices
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if err := tally.Record(rec, firstRef); err != nil {
			return err
		}
		ino := uint64(rec.Ino)
		switch rec.Kind {
		case meta.DumpInode:
			key := w.key("i", ino)
			err = w.set(key, w.appended(func(out []byte) []byte { return meta.AppendAttrRecord(out, &rec.Attr, meta.TimesInSeconds) }))
		case meta.DumpEntry:
			err = w.entry(ino, rec.Name, rec.Type, rec.Child)
		case meta.DumpSymlink:
			key := w.key("s", ino)
			err = w.set(key, w.text(rec.Target))
		case meta.DumpXattr:
			key := w.key("x", ino)
			name := w.text(rec.Name)
			err = w.do("HSET", key, name, w.appended(func(out []byte) []byte { return append(out, rec.Value...) }))
		case meta.DumpChunk:
			if len(rec.Slices) > 0 {
				list = append(list[:0], w.chunkKey(rec.Ino, rec.Index))
				for _, s := range rec.Slices {
					list = append(list, w.appended(func(out []byte) []byte { return meta.AppendSliceRecord(out, s) }))
				}
				err = w.do("RPUSH", list...)
				if err == nil {
					key := w.key("cl", ino)
					err = w.do("SADD", key, w.number(uint64(rec.Index)))
				}
			}
		case meta.DumpDeadSlice:
			key := w.text(e.prefix + ":dead")
			score := w.number(rec.Slice.ID)
			err = w.do("ZADD", key, score, w.appended(func(out []byte) []byte {
				return strconv.AppendUint(append(strconv.AppendUint(out, rec.Slice.ID, 10), ':'), uint64(rec.Slice.Size), 10)
			}))
		default:
			err = fmt.Errorf("unknown dump record kind %d", rec.Kind)
		}
		if err != nil {
			return err
		}
	}
	// The shared slices' counts replace the first ones, which must have
	// reached the server before.
	if err := w.flush(); err != nil {
		return err
	}
	if err := tally.Shared(func(s meta.SharedSlice) error { return w.ref(s.ID, s.Refs) }); err != nil {
		return err
	}
	usage := tally.Usage()
	h := r.Header()
	settings, err := json.Marshal(h.Format)
	if err != nil {
		return fmt.Errorf("encode volume settings: %w", err)
	}
	err = w.do("HSET", w.text(e.prefix+":usage"), w.text("space"), w.number(usage.Space), w.text("inodes"), w.number(usage.Inodes))
	if err == nil {
		err = w.do("HSET", w.text(e.prefix+":quota"), w.text("space"), w.number(h.Format.Capacity), w.text("inodes"), w.number(h.Format.Inodes))
	}
	if err == nil {
		err = w.do("MSET", w.text(e.prefix+":nextino"), w.number(h.NextInode-1), w.text(e.prefix+":nextslice"), w.number(h.NextSlice-1))
	}
	if err != nil {
		return err
	}
	if err := w.flush(); err != nil {
		return err
	}
	return e.rdb.Set(ctx, e.prefix+":setting", settings, 0).Err()
}

// wipe deletes every key under the volume's prefix.
func (e *Engine) wipe(ctx context.Context) error {
	var cursor uint64
	for {
		keys, next, err := e.rdb.Scan(ctx, cursor, e.prefix+":*", 1000).Result()
		if err != nil {
			return err
		}
		if len(keys) > 0 {
			if err := e.rdb.Unlink(ctx, keys...).Err(); err != nil {
				return err
			}
		}
		if cursor = next; cursor == 0 {
			return nil
		}
	}
}
