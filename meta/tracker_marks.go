package meta

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"
)

// postMarkDelay is the longest a post-mark waits to be appended together
// with others: a tracked mutation costs one round trip to the change log
// (its pre-mark) plus a share of one, instead of two.
const postMarkDelay = 2 * time.Millisecond

// postMarkBatch bounds the changes one append carries.
const postMarkBatch = 1000

// postMarks are the post-marks that wait for their append. Fields other
// than appending are guarded by Tracker.mu.
type postMarks struct {
	pending   []queuedMark
	scheduled bool       // an append is due within postMarkDelay
	appending sync.Mutex // one append at a time, so that marks stay in order
}

// queuedMark is a post-mark and the log it goes to (a log ends with its
// migration; marks queued for it then are dropped by the append).
type queuedMark struct {
	log    ChangeLog
	change Change
}

// queueMarkLocked queues c for log, with t.mu held, and schedules the
// append.
func (t *Tracker) queueMarkLocked(log ChangeLog, c Change) {
	t.marks.pending = append(t.marks.pending, queuedMark{log, c})
	if !t.marks.scheduled {
		t.marks.scheduled = true
		time.AfterFunc(postMarkDelay, func() { t.flushMarks(context.Background()) })
	}
}

// flushMarks appends every queued post-mark, as few appends as their logs
// allow, and returns once the marks queued before it was called are
// appended (or failed: the pre-mark stands for a post-mark that is
// missing, and the switch copies its inodes).
func (t *Tracker) flushMarks(ctx context.Context) {
	t.marks.appending.Lock()
	defer t.marks.appending.Unlock()
	t.mu.Lock()
	queued := t.marks.pending
	t.marks.pending, t.marks.scheduled = nil, false
	t.mu.Unlock()
	ctx = context.WithoutCancel(ctx)
	for len(queued) > 0 {
		log := queued[0].log
		var changes []Change
		for len(queued) > 0 && queued[0].log == log && len(changes) < postMarkBatch {
			changes = append(changes, queued[0].change)
			queued = queued[1:]
		}
		if _, err := log.AppendChanges(ctx, changes); err != nil && !errors.Is(err, ErrNoMigration) {
			slog.Warn("record the end of changes for the migration in progress", "changes", len(changes), "err", err)
		}
	}
}
