package migrate

import (
	"context"
	"sync"
	"time"

	"cairn/meta"
)

// callTimes records when calls started and how long they took, to tell
// where the time of a window (the pause) went.
type callTimes struct {
	mu    sync.Mutex
	calls []timedOperation
}

func (c *callTimes) record(name string, start time.Time) {
	c.mu.Lock()
	c.calls = append(c.calls, timedOperation{name: name, start: start, took: time.Since(start)})
	c.mu.Unlock()
}

// within is the number and the whole time of the calls that started in
// [from, until).
func (c *callTimes) within(from, until time.Time) (int, time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	count, total := 0, time.Duration(0)
	for _, call := range c.calls {
		if !call.start.Before(from) && call.start.Before(until) {
			count++
			total += call.took
		}
	}
	return count, total
}

// timedLog is SRC as Run sees it, timing its reads of the change log;
// Unwrap hands every other capability on.
type timedLog struct {
	meta.Engine
	meta.ChangeLog
	reads *callTimes
}

func newTimedLog(e meta.Engine) *timedLog {
	log, _ := meta.Capability[meta.ChangeLog](e)
	return &timedLog{Engine: e, ChangeLog: log, reads: &callTimes{}}
}

func (l *timedLog) Unwrap() meta.Engine { return l.Engine }
func (l *timedLog) Close() error        { return l.Engine.Close() }

func (l *timedLog) Changes(ctx context.Context, after uint64, limit int) ([]meta.Change, error) {
	defer l.reads.record("changes", time.Now())
	return l.ChangeLog.Changes(ctx, after, limit)
}

// timedReplacer is DST as Run sees it, timing the writes of the inodes it
// copies.
type timedReplacer struct {
	meta.Engine
	replacer meta.InodeReplacer
	writes   *callTimes
}

func newTimedReplacer(e meta.Engine) *timedReplacer {
	replacer, _ := meta.Capability[meta.InodeReplacer](e)
	return &timedReplacer{Engine: e, replacer: replacer, writes: &callTimes{}}
}

func (r *timedReplacer) Unwrap() meta.Engine { return r.Engine }

func (r *timedReplacer) ReplaceInodes(ctx context.Context, states []meta.InodeState) (meta.Replaced, error) {
	defer r.writes.record("replace", time.Now())
	return r.replacer.ReplaceInodes(ctx, states)
}

func (r *timedReplacer) DropReferences(ctx context.Context, slices []meta.Slice) error {
	defer r.writes.record("drop", time.Now())
	return r.replacer.DropReferences(ctx, slices)
}

func (r *timedReplacer) RaiseCounters(ctx context.Context, nextInode, nextSlice uint64) error {
	defer r.writes.record("counters", time.Now())
	return r.replacer.RaiseCounters(ctx, nextInode, nextSlice)
}
