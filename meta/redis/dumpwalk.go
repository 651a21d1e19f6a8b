package redis

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	goredis "github.com/redis/go-redis/v9"

	"cairn/meta"
)

const (
	dumpBatch = 1024 // inodes read per pipeline
	dirPage   = 1024 // entries read per request
	// dumpReaders is how many batches of inodes are read at once, each
	// on a connection of its own: while the server works through one
	// batch's commands, the client decodes another's replies and writes
	// its records.
	dumpReaders = 2
)

// dumpWalk is the state of one dump's walk of the tree. The walk (listing
// directories, writing records) runs on the dump's goroutine; the inodes
// it finds are read in batches by dumpReaders goroutines. Records may
// come in any order: the walk writes a batch's records when it is read.
type dumpWalk struct {
	e       *Engine
	ctx     context.Context
	w       meta.DumpWriter
	rec     meta.DumpRecord
	dirs    []meta.Ino        // directories to list
	pending []meta.Ino        // inodes to read
	linked  map[meta.Ino]bool // inodes with several links already written
	jobs    chan *inodeBatch
	read    chan *inodeBatch
	free    []*inodeBatch // batches written, to reuse
	reading int           // batches handed to the readers and not yet written
}

// inodeBatch is a batch of inodes to read and, once read, their records.
type inodeBatch struct {
	inos    []meta.Ino
	records []meta.DumpRecord
	dirs    []meta.Ino // the directories among them
	linked  []meta.Ino // the inodes with several links, not directories
	err     error
}

// walk writes the tree's entries and inodes, starting from the pending
// inodes (the root).
func (d *dumpWalk) walk() error {
	d.jobs, d.read = make(chan *inodeBatch), make(chan *inodeBatch, dumpReaders)
	var readers sync.WaitGroup
	for range dumpReaders {
		readers.Go(func() {
			for b := range d.jobs {
				b.err = d.e.readInodes(d.ctx, b)
				d.read <- b
			}
		})
	}
	defer func() {
		close(d.jobs)
		readers.Wait()
	}()
	for {
		err := d.writeRead()
		switch {
		case err != nil:
		case len(d.pending) >= dumpBatch || len(d.pending) > 0 && len(d.dirs) == 0:
			err = d.submit()
		case len(d.dirs) > 0:
			dir := d.dirs[len(d.dirs)-1]
			d.dirs = d.dirs[:len(d.dirs)-1]
			err = d.listDir(dir)
		case d.reading > 0:
			err = d.write(<-d.read)
		default:
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// writeRead writes the batches already read, without waiting for one, so
// that a reader done with its batch soon gets another.
func (d *dumpWalk) writeRead() error {
	for d.reading > 0 {
		select {
		case b := <-d.read:
			if err := d.write(b); err != nil {
				return err
			}
		default:
			return nil
		}
	}
	return nil
}

// submit hands the pending inodes to a reader, once one is free.
func (d *dumpWalk) submit() error {
	for d.reading >= dumpReaders {
		if err := d.write(<-d.read); err != nil {
			return err
		}
	}
	b := &inodeBatch{}
	if n := len(d.free); n > 0 {
		b, d.free = d.free[n-1], d.free[:n-1]
	}
	b.inos = append(b.inos[:0], d.pending...)
	d.pending = d.pending[:0]
	d.jobs <- b
	d.reading++
	return nil
}

// write writes the records of a batch read, but not those of an inode
// with several links written before, and queues its directories.
func (d *dumpWalk) write(b *inodeBatch) error {
	d.reading--
	if b.err != nil {
		return b.err
	}
	var written map[meta.Ino]bool
	for _, ino := range b.linked {
		if d.linked[ino] {
			if written == nil {
				written = map[meta.Ino]bool{}
			}
			written[ino] = true
		}
		d.linked[ino] = true
	}
	for i := range b.records {
		if written[b.records[i].Ino] {
			continue
		}
		if err := d.w.Record(&b.records[i]); err != nil {
			return err
		}
	}
	d.dirs = append(d.dirs, b.dirs...)
	b.records, b.dirs, b.linked = b.records[:0], b.dirs[:0], b.linked[:0]
	d.free = append(d.free, b)
	return nil
}

// listDir writes a directory's entries a page at a time and submits the
// inodes they name.
func (d *dumpWalk) listDir(dir meta.Ino) error {
	key := d.e.key("d", uint64(dir))
	for start := int64(0); ; start += dirPage {
		if err := d.writeRead(); err != nil {
			return err
		}
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
				if err := d.submit(); err != nil {
					return err
				}
			}
		}
		if len(members) < dirPage {
			return nil
		}
	}
}

// readInodes reads a batch's inodes with their symlink targets, xattrs
// and chunks into its records, and notes the directories among them. It
// costs three round trips and as few commands as the types allow: one
// MGET for all the attributes, then an HGETALL per inode, an SMEMBERS per
// file and a GET per symlink, then an LRANGE per chunk. Redis spends more
// per command than per key, so the commands, not the round trips, are
// what counts.
func (e *Engine) readInodes(ctx context.Context, b *inodeBatch) error {
	keys := make([]string, len(b.inos))
	for i, ino := range b.inos {
		keys[i] = e.key("i", uint64(ino))
	}
	values, err := e.rdb.MGet(ctx, keys...).Result()
	if err != nil {
		return err
	}
	attrs := make([]meta.Attr, 0, len(b.inos))
	read := b.inos[:0:0]
	var linked map[meta.Ino]bool // in this batch
	for i, ino := range b.inos {
		raw, ok := values[i].(string)
		if !ok {
			return fmt.Errorf("inode %d is named by a directory entry but has no attributes", ino)
		}
		a, err := decodeAttr(raw)
		if err != nil {
			return fmt.Errorf("inode %d: %w", ino, err)
		}
		if a.Nlink > 1 && a.Type != meta.TypeDirectory {
			if linked[ino] {
				continue
			}
			if linked == nil {
				linked = map[meta.Ino]bool{}
			}
			linked[ino] = true
			b.linked = append(b.linked, ino)
		}
		attrs = append(attrs, a)
		read = append(read, ino)
	}
	pipe := e.rdb.Pipeline()
	targets := make([]*goredis.StringCmd, len(read))
	xattrs := make([]*goredis.MapStringStringCmd, len(read))
	chunkSets := make([]*goredis.StringSliceCmd, len(read))
	for i, ino := range read {
		xattrs[i] = pipe.HGetAll(ctx, e.key("x", uint64(ino)))
		switch attrs[i].Type {
		case meta.TypeSymlink:
			targets[i] = pipe.Get(ctx, e.key("s", uint64(ino)))
		case meta.TypeFile:
			chunkSets[i] = pipe.SMembers(ctx, e.key("cl", uint64(ino)))
		}
	}
	if err := execDumpPipe(ctx, pipe); err != nil {
		return err
	}
	type chunkRef struct {
		ino meta.Ino
		idx uint32
		cmd *goredis.StringSliceCmd
	}
	var chunks []chunkRef
	pipe = e.rdb.Pipeline()
	for i, ino := range read {
		b.records = append(b.records, meta.DumpRecord{Kind: meta.DumpInode, Ino: ino, Attr: attrs[i]})
		if attrs[i].Type == meta.TypeDirectory {
			b.dirs = append(b.dirs, ino)
		}
		if targets[i] != nil {
			if target, err := targets[i].Result(); err == nil {
				b.records = append(b.records, meta.DumpRecord{Kind: meta.DumpSymlink, Ino: ino, Target: target})
			}
		}
		for name, value := range xattrs[i].Val() {
			b.records = append(b.records, meta.DumpRecord{Kind: meta.DumpXattr, Ino: ino, Name: name, Value: []byte(value)})
		}
		if chunkSets[i] == nil {
			continue
		}
		for _, member := range chunkSets[i].Val() {
			idx, err := strconv.ParseUint(member, 10, 32)
			if err != nil {
				return fmt.Errorf("inode %d: corrupt chunk index %q", ino, member)
			}
			chunks = append(chunks, chunkRef{ino: ino, idx: uint32(idx), cmd: pipe.LRange(ctx, e.chunkKey(ino, uint32(idx)), 0, -1)})
		}
	}
	if len(chunks) == 0 {
		return nil
	}
	if err := execDumpPipe(ctx, pipe); err != nil {
		return err
	}
	for _, c := range chunks {
		raw := c.cmd.Val()
		list := make([]meta.Slice, 0, len(raw))
		for _, r := range raw {
			s, err := meta.DecodeSliceRecord([]byte(r))
			if err != nil {
				return fmt.Errorf("chunk %d of inode %d: %w", c.idx, c.ino, err)
			}
			list = append(list, s)
		}
		b.records = append(b.records, meta.DumpRecord{Kind: meta.DumpChunk, Ino: c.ino, Index: c.idx, Slices: list})
	}
	return nil
}

// execDumpPipe sends a dump's pipeline and waits for its replies. A
// missing key (a symlink without its target) is not an error.
func execDumpPipe(ctx context.Context, pipe goredis.Pipeliner) error {
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, goredis.Nil) {
		return err
	}
	return nil
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
