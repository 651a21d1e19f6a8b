package redis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	goredis "github.com/redis/go-redis/v9"

	"cairn/meta"
)

var _ meta.Dumper = (*Engine)(nil)

const (
	dumpBatch = 1024 // inodes read per pipeline
	dirPage   = 1024 // entries read per request
)

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

// dumpWalk is the state of one dump's walk of the tree.
type dumpWalk struct {
	e       *Engine
	ctx     context.Context
	w       meta.DumpWriter
	rec     meta.DumpRecord
	dirs    []meta.Ino        // directories to list
	pending []meta.Ino        // inodes to read
	linked  map[meta.Ino]bool // inodes with several links already read
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
	if err := d.readInodes(); err != nil {
		return err
	}
	for len(d.dirs) > 0 {
		dir := d.dirs[len(d.dirs)-1]
		d.dirs = d.dirs[:len(d.dirs)-1]
		if err := d.listDir(dir); err != nil {
			return err
		}
	}
	return d.deadSlices()
}

// listDir emits a directory's entries a page at a time and reads the
// inodes they name.
func (d *dumpWalk) listDir(dir meta.Ino) error {
	key := d.e.key("d", uint64(dir))
	for start := int64(0); ; start += dirPage {
		members, err := d.e.rdb.ZRange(d.ctx, key, start, start+dirPage-1).Result()
		if err != nil {
			return err
		}
		for _, m := range members {
			ent, err := decodeEntry(m)
			if err != nil {
				return err
			}
			d.rec = meta.DumpRecord{Kind: meta.DumpEntry, Ino: dir, Name: ent.Name, Child: ent.Ino, Type: ent.Type}
			if err := d.w.Record(&d.rec); err != nil {
				return err
			}
			if !d.linked[ent.Ino] {
				d.pending = append(d.pending, ent.Ino)
			}
			if len(d.pending) >= dumpBatch {
				if err := d.readInodes(); err != nil {
					return err
				}
			}
		}
		if len(members) < dirPage {
			return d.readInodes()
		}
	}
}

// readInodes emits the pending inodes with their symlink targets, xattrs
// and chunks, and queues the directories among them. It costs three round
// trips and as few commands as the types allow: one MGET for all the
// attributes, then an HGETALL per inode, an SMEMBERS per file and a GET
// per symlink, then an LRANGE per chunk. Redis spends more per command
// than per key, so the commands, not the round trips, are what counts.
func (d *dumpWalk) readInodes() error {
	inos := d.pending
	if len(inos) == 0 {
		return nil
	}
	d.pending = d.pending[:0]
	e := d.e
	keys := make([]string, len(inos))
	for i, ino := range inos {
		keys[i] = e.key("i", uint64(ino))
	}
	values, err := e.rdb.MGet(d.ctx, keys...).Result()
	if err != nil {
		return err
	}
	attrs := make([]meta.Attr, 0, len(inos))
	read := inos[:0:0]
	for i, ino := range inos {
		raw, ok := values[i].(string)
		if !ok {
			return fmt.Errorf("inode %d is named by a directory entry but has no attributes", ino)
		}
		a, err := decodeAttr(raw)
		if err != nil {
			return fmt.Errorf("inode %d: %w", ino, err)
		}
		if a.Nlink > 1 && a.Type != meta.TypeDirectory {
			if d.linked[ino] {
				continue
			}
			d.linked[ino] = true
		}
		attrs = append(attrs, a)
		read = append(read, ino)
	}
	pipes := d.pipes()
	targets := make([]*goredis.StringCmd, len(read))
	xattrs := make([]*goredis.MapStringStringCmd, len(read))
	chunkSets := make([]*goredis.StringSliceCmd, len(read))
	for i, ino := range read {
		pipe := pipes[i%len(pipes)]
		xattrs[i] = pipe.HGetAll(d.ctx, e.key("x", uint64(ino)))
		switch attrs[i].Type {
		case meta.TypeSymlink:
			targets[i] = pipe.Get(d.ctx, e.key("s", uint64(ino)))
		case meta.TypeFile:
			chunkSets[i] = pipe.SMembers(d.ctx, e.key("cl", uint64(ino)))
		}
	}
	if err := d.exec(pipes); err != nil {
		return err
	}
	type chunkRef struct {
		ino meta.Ino
		idx uint32
		cmd *goredis.StringSliceCmd
	}
	var chunks []chunkRef
	pipes = d.pipes()
	for i, ino := range read {
		d.rec = meta.DumpRecord{Kind: meta.DumpInode, Ino: ino, Attr: attrs[i]}
		if err := d.w.Record(&d.rec); err != nil {
			return err
		}
		if attrs[i].Type == meta.TypeDirectory {
			d.dirs = append(d.dirs, ino)
		}
		if targets[i] != nil {
			if target, err := targets[i].Result(); err == nil {
				d.rec = meta.DumpRecord{Kind: meta.DumpSymlink, Ino: ino, Target: target}
				if err := d.w.Record(&d.rec); err != nil {
					return err
				}
			}
		}
		for name, value := range xattrs[i].Val() {
			d.rec = meta.DumpRecord{Kind: meta.DumpXattr, Ino: ino, Name: name, Value: []byte(value)}
			if err := d.w.Record(&d.rec); err != nil {
				return err
			}
		}
		if chunkSets[i] == nil {
			continue
		}
		for _, member := range chunkSets[i].Val() {
			idx, err := strconv.ParseUint(member, 10, 32)
			if err != nil {
				return fmt.Errorf("inode %d: corrupt chunk index %q", ino, member)
			}
			chunks = append(chunks, chunkRef{ino: ino, idx: uint32(idx),
				cmd: pipes[len(chunks)%len(pipes)].LRange(d.ctx, e.chunkKey(ino, uint32(idx)), 0, -1)})
		}
	}
	if len(chunks) == 0 {
		return nil
	}
	if err := d.exec(pipes); err != nil {
		return err
	}
	var list []meta.Slice
	for _, c := range chunks {
		raw := c.cmd.Val()
		list = list[:0]
		for _, r := range raw {
			s, err := meta.DecodeSliceRecord([]byte(r))
			if err != nil {
				return fmt.Errorf("chunk %d of inode %d: %w", c.idx, c.ino, err)
			}
			list = append(list, s)
		}
		d.rec = meta.DumpRecord{Kind: meta.DumpChunk, Ino: c.ino, Index: c.idx, Slices: list}
		if err := d.w.Record(&d.rec); err != nil {
			return err
		}
	}
	return nil
}

// dumpPipes is how many pipelines a dump sends at once, each on a
// connection of its own: while the server works through one, the client
// writes another or reads its replies.
const dumpPipes = 2

func (d *dumpWalk) pipes() []goredis.Pipeliner {
	pipes := make([]goredis.Pipeliner, dumpPipes)
	for i := range pipes {
		pipes[i] = d.e.rdb.Pipeline()
	}
	return pipes
}

// exec sends pipes at once and waits for all their replies. A missing
// key (a symlink without its target) is not an error.
func (d *dumpWalk) exec(pipes []goredis.Pipeliner) error {
	errs := make([]error, len(pipes))
	var wg sync.WaitGroup
	for i, pipe := range pipes {
		wg.Go(func() {
			if _, err := pipe.Exec(d.ctx); err != nil && !errors.Is(err, goredis.Nil) {
				errs[i] = err
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (d *dumpWalk) deadSlices() error {
	key := d.e.prefix + ":dead"
	for start := int64(0); ; start += dirPage {
		members, err := d.e.rdb.ZRange(d.ctx, key, start, start+dirPage-1).Result()
		if err != nil {
			return err
		}
		for _, m := range members {
			id, size, ok := strings.Cut(m, ":")
			n, err1 := strconv.ParseUint(id, 10, 64)
			s, err2 := strconv.ParseUint(size, 10, 32)
			if !ok || err1 != nil || err2 != nil {
				return fmt.Errorf("corrupt dead slice %q", m)
			}
			d.rec = meta.DumpRecord{Kind: meta.DumpDeadSlice, Slice: meta.DeadSlice{ID: n, Size: uint32(s)}}
			if err := d.w.Record(&d.rec); err != nil {
				return err
			}
		}
		if len(members) < dirPage {
			return nil
		}
	}
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
			err = w.set(key, w.appended(func(out []byte) []byte { return appendAttr(out, &rec.Attr) }))
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
			key := w.named(":dead")
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
	err = w.do("HSET", w.named(":usage"), w.text("space"), w.number(usage.Space), w.text("inodes"), w.number(usage.Inodes))
	if err == nil {
		err = w.do("HSET", w.named(":quota"), w.text("space"), w.number(h.Format.Capacity), w.text("inodes"), w.number(h.Format.Inodes))
	}
	if err == nil {
		err = w.do("MSET", w.named(":nextino"), w.number(h.NextInode-1), w.named(":nextslice"), w.number(h.NextSlice-1))
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
