package meta

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// DirStatsInterval is how often a Client writes the directory statistics
// it summed (see dirstats.go): the most they lag behind its changes.
const DirStatsInterval = time.Second

// dirStats is a Client's share of the directory statistics: the sums of
// its changes not yet written, and what it needs to attribute a file's
// growth to a directory.
type dirStats struct {
	store DirStatStore // nil: the engine keeps no statistics

	mu      sync.Mutex
	pending map[Ino]DirStat
	removed []Ino
	parents map[Ino]Ino    // the directory a file was last reached through
	lengths map[Ino]uint64 // a file's length as this client last knew it

	flushMu sync.Mutex // one flush at a time, so that sums stay in order; guards the rest
	mark    FlushMark  // this client's record, with the Seq of the last batch sent
	doubt   *statBatch // a batch whose write failed, sent again before any other
}

// statBatch is one flush's sums, with the mark that makes sending it
// again harmless (see FlushMark): a write that failed may still have
// been applied, so the batch goes again as it was, never merged into
// later sums, until a write of it succeeds.
type statBatch struct {
	deltas  map[Ino]DirStat
	removed []Ino
	mark    FlushMark
}

// dirStatsMapLimit bounds the parents and lengths maps: past it they are
// emptied, and the growth of files reached before is not counted until
// fsck --repair (they are found again on their next look-up).
const dirStatsMapLimit = 1 << 20

func newDirStats(eng Engine, off bool) *dirStats {
	s := &dirStats{pending: map[Ino]DirStat{}, parents: map[Ino]Ino{}, lengths: map[Ino]uint64{}, mark: FlushMark{Key: NewFlushMarkKey()}}
	if !off {
		s.store, _ = Capability[DirStatStore](eng)
	}
	return s
}

// on reports whether the engine keeps statistics.
func (s *dirStats) on() bool { return s.store != nil }

// add sums d into dir's pending change.
func (s *dirStats) add(dir Ino, d DirStat) {
	if !s.on() || dir == 0 || d == (DirStat{}) {
		return
	}
	s.mu.Lock()
	s.pending[dir] = s.pending[dir].Add(d)
	s.mu.Unlock()
}

// entryOf is what an entry with attributes a adds to its directory.
func entryOf(a *Attr) DirStat {
	return DirStat{Space: int64(SpaceOf(a)), Inodes: 1}
}

func negative(d DirStat) DirStat { return DirStat{Space: -d.Space, Inodes: -d.Inodes} }

// reached records that file ino with attributes a was reached through
// directory dir, and its length (as saw does, under the same lock).
func (s *dirStats) reached(dir, ino Ino, a *Attr) {
	if !s.on() {
		return
	}
	s.mu.Lock()
	s.reachedLocked(dir, ino, a)
	s.mu.Unlock()
}

// reachedListed is reached for every entry with attributes of a
// readdirplus page of directory dir, under one lock.
func (s *dirStats) reachedListed(dir Ino, es []Entry) {
	if !s.on() {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range es {
		if es[i].Attr != nil {
			s.reachedLocked(dir, es[i].Ino, es[i].Attr)
		}
	}
}

func (s *dirStats) reachedLocked(dir, ino Ino, a *Attr) {
	if a.IsDir() {
		return
	}
	if len(s.parents) > dirStatsMapLimit {
		s.parents = map[Ino]Ino{}
	}
	s.parents[ino] = dir
	if a.Type == TypeFile {
		s.sawLocked(ino, a.Length)
	}
}

// listedAttrs caches the attributes a listing of directory dir that
// began at mark (attrCache.beginListing) found, as noteReached does for
// one entry, but for those this client changed since.
func (c *Client) listedAttrs(dir Ino, es []Entry, mark uint64) {
	c.stats.reachedListed(dir, c.attrs.putListed(es, c.cfg.AttrTimeout, mark))
}

// noteReached caches what a look-up or a readdirplus found: inode ino
// with attributes a, reached through directory dir.
// It is remember, with the statistics' two notes taken under one lock.
func (c *Client) noteReached(dir, ino Ino, a Attr) {
	c.attrs.put(ino, a, c.cfg.AttrTimeout)
	c.stats.reached(dir, ino, &a)
}

// forgetParent drops ino's directory when it was dir (that name is gone).
func (s *dirStats) forgetParent(dir, ino Ino) {
	if !s.on() {
		return
	}
	s.mu.Lock()
	if s.parents[ino] == dir {
		delete(s.parents, ino)
	}
	s.mu.Unlock()
}

// saw records a file's length as read or written by this client.
func (s *dirStats) saw(ino Ino, a *Attr) {
	if !s.on() || a.Type != TypeFile {
		return
	}
	s.mu.Lock()
	s.sawLocked(ino, a.Length)
	s.mu.Unlock()
}

func (s *dirStats) sawLocked(ino Ino, length uint64) {
	if len(s.lengths) > dirStatsMapLimit {
		s.lengths = map[Ino]uint64{}
	}
	s.lengths[ino] = length
}

// resized counts the change of file ino's length to a.Length in the
// directory it was reached through. before is its length before the
// change when the client knew it (from the attribute cache). growOnly is
// for Write, which never shortens a file: a smaller length then is an
// older answer than one already counted.
func (s *dirStats) resized(ino Ino, a *Attr, before uint64, known, growOnly bool) (Ino, DirStat) {
	if !s.on() || a.Type != TypeFile {
		return 0, DirStat{}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.lengths[ino]
	if !ok {
		if !known {
			s.lengths[ino] = a.Length
			return 0, DirStat{}
		}
		old = before
	}
	if growOnly && a.Length <= old {
		return 0, DirStat{}
	}
	s.lengths[ino] = a.Length
	dir := s.parents[ino]
	if dir == 0 {
		return 0, DirStat{}
	}
	was := Attr{Type: TypeFile, Length: old}
	d := DirStat{Space: int64(SpaceOf(a)) - int64(SpaceOf(&was))}
	if d.Space != 0 {
		s.pending[dir] = s.pending[dir].Add(d)
	}
	return dir, d
}

// gone records that directory ino was removed: its statistics go at the
// next flush.
func (s *dirStats) gone(ino Ino) {
	if !s.on() || ino == 0 {
		return
	}
	s.mu.Lock()
	delete(s.pending, ino)
	s.removed = append(s.removed, ino)
	s.mu.Unlock()
}

// flush writes the pending sums in one call, after the batch of a flush
// that failed, if any. On failure the batch is kept to be sent again,
// with the same mark, by the next flush.
func (s *dirStats) flush(ctx context.Context) error {
	if !s.on() {
		return nil
	}
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	if err := s.sendDoubt(ctx, s.store); err != nil {
		return fmt.Errorf("write directory statistics: %w", err)
	}
	s.mu.Lock()
	b := &statBatch{deltas: s.pending, removed: s.removed}
	s.pending, s.removed = map[Ino]DirStat{}, nil
	s.mu.Unlock()
	if len(b.deltas) == 0 && len(b.removed) == 0 {
		return nil
	}
	s.mark.Seq++
	b.mark = s.mark
	if err := s.store.AddDirStats(ctx, b.deltas, b.removed, b.mark); err != nil {
		s.doubt = b
		return fmt.Errorf("write directory statistics: %w", err)
	}
	return nil
}

// settle writes the batch in doubt, if any, to store (the engine a
// migration's pause holds, reached around the pause), with its mark.
func (s *dirStats) settle(ctx context.Context, store DirStatStore) error {
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	return s.sendDoubt(ctx, store)
}

// sendDoubt writes the batch in doubt, if any, to store with its mark,
// and forgets it once written; on failure it stays in doubt. The error
// is store's, as it is. Call with flushMu held.
func (s *dirStats) sendDoubt(ctx context.Context, store DirStatStore) error {
	if s.doubt == nil {
		return nil
	}
	if err := store.AddDirStats(ctx, s.doubt.deltas, s.doubt.removed, s.doubt.mark); err != nil {
		return err
	}
	s.doubt = nil
	return nil
}

// dropMarks forgets this client's flush marks' records (at Close, once
// everything is written): a mark matters only while a batch of its
// writer may still arrive. quotaSent says the quotas' mark was used.
func (s *dirStats) dropMarks(ctx context.Context, quotaSent bool) error {
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	var keys []Ino
	if s.mark.Seq > 0 && s.doubt == nil {
		keys = append(keys, s.mark.Key)
	}
	if quotaSent {
		keys = append(keys, s.mark.Key+1)
	}
	if len(keys) == 0 {
		return nil
	}
	return s.store.AddDirStats(ctx, nil, keys, FlushMark{})
}

// FlushDirStats writes the directory statistics this client has summed
// and not yet written; a no-op on an engine without statistics. While a
// migration's pause refuses flushes (errFlushPaused) it waits for the
// pause to end, as a mutation does, and fails as a mutation does when the
// pause refuses them (ErrIO) or ctx ends first.
func (c *Client) FlushDirStats(ctx context.Context) error {
	for {
		err := c.flushOnce(ctx)
		if !errors.Is(err, errFlushPaused) {
			return err
		}
		if err := c.tracker.waitResumed(ctx); err != nil {
			return fmt.Errorf("flush directory statistics: wait for a migration's pause to end: %w", err)
		}
	}
}

// flushOnce is one try of FlushDirStats: refused while paused.
func (c *Client) flushOnce(ctx context.Context) error {
	defer c.observe("flush_dir_stats", now())
	if err := c.stats.flush(ctx); err != nil {
		return err
	}
	return c.flushQuotas(ctx)
}

// dropFlushMarks forgets the records of this client's flush marks.
func (c *Client) dropFlushMarks(ctx context.Context) error {
	if !c.stats.on() {
		return nil
	}
	q := c.quota
	q.storeMu.Lock()
	quotaSent := q.mark.Seq > 0 && q.doubt == nil
	q.storeMu.Unlock()
	return c.stats.dropMarks(ctx, quotaSent)
}

// DirStatsOn reports whether the engine keeps directory statistics.
func (c *Client) DirStatsOn() bool { return c.stats.on() }

// flushDirStatsLoop writes the statistics every DirStatsInterval until
// stop closes.
func (c *Client) flushDirStatsLoop(stop, done chan struct{}) {
	defer close(done)
	if !c.stats.on() {
		return
	}
	t := time.NewTicker(DirStatsInterval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*DirStatsInterval)
		if err := c.flushOnce(ctx); errors.Is(err, errFlushPaused) {
			slog.Debug("flush directory statistics", "err", err)
		} else if err != nil {
			slog.Warn("flush directory statistics", "err", err)
		}
		cancel()
	}
}

// cachedSpace is the space of the files names (inos by name) as the
// attribute cache has them.
func (c *Client) cachedSpace(names []string, inos map[string]Ino) int64 {
	var space int64
	for _, name := range names {
		if a, ok := c.attrs.peek(inos[name]); ok {
			space += int64(SpaceOf(&a))
		}
	}
	return space
}

// countRemoved counts a batch removal from dir of names names holding
// space (cachedSpace), of which removed existed. A name not cached, or a
// batch where some names were already gone, counts its inodes only, and
// fsck --repair corrects the space (rmr removes the directory itself
// next, with its statistics).
func (c *Client) countRemoved(dir Ino, space int64, names, removed int) {
	if !c.stats.on() {
		return
	}
	d := DirStat{Inodes: -int64(removed)}
	if removed == names {
		d.Space = -space
	}
	c.count(context.Background(), dir, d)
}

// growth is the directory file ino was reached through and what its
// statistics would gain if the file's length became end.
func (s *dirStats) growth(ino Ino, end uint64) (Ino, DirStat) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.lengths[ino]
	dir := s.parents[ino]
	if !ok || dir == 0 || end <= old {
		return dir, DirStat{}
	}
	was, will := Attr{Type: TypeFile, Length: old}, Attr{Type: TypeFile, Length: end}
	return dir, DirStat{Space: int64(SpaceOf(&will)) - int64(SpaceOf(&was))}
}
