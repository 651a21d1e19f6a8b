package metatest

import (
	"fmt"
	"sync"

	"cairn/meta"
)

// changeLogTests hold meta.ChangeLog to its contract: a compare-and-swap
// migration record, a log that lives and dies with it, and a sequence in
// commit order under concurrent appends.
func changeLogTests() []test {
	return []test{
		{"ChangeLog/Record", testChangeLogRecord},
		{"ChangeLog/Log", testChangeLogLog},
		{"ChangeLog/ConcurrentAppends", testChangeLogConcurrentAppends},
	}
}

// changeLog is the suite engine's ChangeLog; the subtest skips without one.
func (x *env) changeLog() meta.ChangeLog {
	x.t.Helper()
	l, ok := meta.Capability[meta.ChangeLog](x.e)
	if !ok {
		x.t.Skip("this engine has no meta.ChangeLog")
	}
	return l
}

func (x *env) migration(l meta.ChangeLog) string {
	x.t.Helper()
	rec, err := l.Migration(x.ctx)
	x.must(err, "Migration")
	if rec == nil {
		return "<none>"
	}
	return string(rec)
}

func testChangeLogRecord(x *env) {
	l := x.changeLog()
	if got := x.migration(l); got != "<none>" {
		x.t.Errorf("Migration on a new volume = %q, want none", got)
	}
	x.want(meta.ErrConflict, l.SwapMigration(x.ctx, []byte("a"), []byte("b")), "SwapMigration of a record that does not exist")
	x.want(meta.ErrConflict, l.SwapMigration(x.ctx, []byte("a"), nil), "removing a record that does not exist")
	x.want(meta.ErrInvalid, l.SwapMigration(x.ctx, nil, []byte{}), "SwapMigration to an empty record")
	x.must(l.SwapMigration(x.ctx, nil, []byte("a")), "SwapMigration creating the record")
	x.want(meta.ErrConflict, l.SwapMigration(x.ctx, nil, []byte("other")), "creating a second record")
	x.want(meta.ErrConflict, l.SwapMigration(x.ctx, []byte("b"), []byte("c")), "SwapMigration from a stale record")
	x.want(meta.ErrConflict, l.SwapMigration(x.ctx, []byte("ab"), []byte("c")), "SwapMigration from a longer record")
	if got := x.migration(l); got != "a" {
		x.t.Errorf("Migration after refused swaps = %q, want %q", got, "a")
	}
	big := make([]byte, 4096)
	for i := range big {
		big[i] = byte(i)
	}
	x.must(l.SwapMigration(x.ctx, []byte("a"), big), "SwapMigration to a binary record")
	if got := x.migration(l); got != string(big) {
		x.t.Errorf("Migration = %d bytes, want the 4096 bytes written", len(got))
	}
	x.must(l.SwapMigration(x.ctx, big, nil), "SwapMigration removing the record")
	if got := x.migration(l); got != "<none>" {
		x.t.Errorf("Migration after removing it = %q, want none", got)
	}
	// The record is not part of the tree: the volume still checks out.
}

func testChangeLogLog(x *env) {
	l := x.changeLog()
	one := []meta.Change{{Kind: meta.ChangeBefore, Session: x.sid, Operation: 1, Inodes: []meta.Ino{meta.RootIno}}}
	_, err := l.AppendChanges(x.ctx, one)
	x.want(meta.ErrNoMigration, err, "AppendChanges without a migration record")
	_, err = l.ChangesEnd(x.ctx)
	x.want(meta.ErrNoMigration, err, "ChangesEnd without a migration record")
	_, err = l.Changes(x.ctx, 0, 10)
	x.want(meta.ErrNoMigration, err, "Changes without a migration record")
	x.want(meta.ErrNoMigration, l.TrimChanges(x.ctx, 1), "TrimChanges without a migration record")

	x.must(l.SwapMigration(x.ctx, nil, []byte("m1")), "SwapMigration creating the record")
	if end, err := l.ChangesEnd(x.ctx); err != nil || end != 0 {
		x.t.Errorf("ChangesEnd of a new log = %d, %v; want 0", end, err)
	}
	want := []meta.Change{
		{Kind: meta.ChangeBefore, Session: x.sid, Operation: 7, Inodes: []meta.Ino{meta.RootIno, 1 << 40}},
		{Kind: meta.ChangeAfter, Session: x.sid, Operation: 7, Inodes: []meta.Ino{meta.RootIno, 1 << 40, 9}},
		{Kind: meta.ChangeAck, Session: 1 << 33, Operation: 2},
	}
	last, err := l.AppendChanges(x.ctx, want)
	x.must(err, "AppendChanges")
	if last != 3 {
		x.t.Errorf("AppendChanges of 3 changes to a new log returned %d, want 3", last)
	}
	for i := range want {
		want[i].Seq = uint64(i + 1)
	}
	x.changes(l, 0, 10, want)
	x.changes(l, 1, 1, want[1:2])
	x.changes(l, 3, 10, nil)
	x.must(l.TrimChanges(x.ctx, 2), "TrimChanges")
	x.changes(l, 0, 10, want[2:])
	last, err = l.AppendChanges(x.ctx, one)
	x.must(err, "AppendChanges after TrimChanges")
	if last != 4 {
		x.t.Errorf("AppendChanges after a trim returned %d, want 4 (the sequence goes on)", last)
	}
	if end, err := l.ChangesEnd(x.ctx); err != nil || end != 4 {
		x.t.Errorf("ChangesEnd = %d, %v; want 4", end, err)
	}

	// Removing the record drops the log; a new record starts a new one.
	x.must(l.SwapMigration(x.ctx, []byte("m1"), nil), "SwapMigration removing the record")
	_, err = l.AppendChanges(x.ctx, one)
	x.want(meta.ErrNoMigration, err, "AppendChanges after the record was removed")
	x.must(l.SwapMigration(x.ctx, nil, []byte("m2")), "SwapMigration creating a second record")
	x.changes(l, 0, 10, nil)
	last, err = l.AppendChanges(x.ctx, one)
	x.must(err, "AppendChanges to the second log")
	if last != 1 {
		x.t.Errorf("the first AppendChanges of a new log returned %d, want 1", last)
	}
	x.must(l.SwapMigration(x.ctx, []byte("m2"), nil), "SwapMigration removing the second record")
}

// changes checks Changes(after, limit) against want.
func (x *env) changes(l meta.ChangeLog, after uint64, limit int, want []meta.Change) {
	x.t.Helper()
	got, err := l.Changes(x.ctx, after, limit)
	x.must(err, "Changes(%d, %d)", after, limit)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		x.t.Errorf("Changes(%d, %d) =\n%v\nwant\n%v", after, limit, got, want)
	}
}

// testChangeLogConcurrentAppends appends from several writers at once
// while a reader checks the commit-order promise: once ChangesEnd says n,
// every change up to n is readable.
func testChangeLogConcurrentAppends(x *env) {
	l := x.changeLog()
	x.must(l.SwapMigration(x.ctx, nil, []byte("m")), "SwapMigration creating the record")
	const writers, appends = 4, 24
	const total = writers * appends * 3 / 2 // every other append adds a post-mark
	var wg sync.WaitGroup
	errs := make(chan error, writers+1)
	done, stop := make(chan struct{}), make(chan struct{})
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for op := range uint64(appends) {
				c := []meta.Change{{Kind: meta.ChangeBefore, Session: uint64(w + 1), Operation: op + 1}}
				if op%2 == 1 {
					c = append(c, meta.Change{Kind: meta.ChangeAfter, Session: uint64(w + 1), Operation: op + 1})
				}
				if _, err := l.AppendChanges(x.ctx, c); err != nil {
					errs <- fmt.Errorf("writer %d: AppendChanges: %w", w, err)
					return
				}
			}
		}()
	}
	go func() {
		defer close(done)
		for {
			finished := false
			select {
			case <-stop:
				finished = true
			default:
			}
			end, err := l.ChangesEnd(x.ctx)
			if err != nil {
				errs <- fmt.Errorf("reader: ChangesEnd: %w", err)
				return
			}
			got, err := l.Changes(x.ctx, 0, int(end)+1000)
			if err != nil {
				errs <- fmt.Errorf("reader: Changes: %w", err)
				return
			}
			for i := uint64(0); i < end; i++ {
				if i >= uint64(len(got)) || got[i].Seq != i+1 {
					errs <- fmt.Errorf("reader: ChangesEnd said %d but change %d is not readable", end, i+1)
					return
				}
			}
			if finished {
				return
			}
		}
	}()
	wg.Wait()
	close(stop)
	<-done
	close(errs)
	for err := range errs {
		x.t.Error(err)
	}
	got, err := l.Changes(x.ctx, 0, 1000)
	x.must(err, "Changes")
	if len(got) != total {
		x.t.Fatalf("Changes after %d appends = %d changes, want %d", writers*appends, len(got), total)
	}
	last := map[uint64]uint64{}
	for i, c := range got {
		if c.Seq != uint64(i+1) {
			x.t.Fatalf("change %d numbered %d: the sequence has a gap or repeats", i+1, c.Seq)
		}
		if c.Kind == meta.ChangeBefore && c.Operation <= last[c.Session] {
			x.t.Errorf("writer %d's operation %d numbered after its operation %d", c.Session, c.Operation, last[c.Session])
		}
		if c.Kind == meta.ChangeBefore {
			last[c.Session] = c.Operation
		}
	}
	x.must(l.SwapMigration(x.ctx, []byte("m"), nil), "SwapMigration removing the record")
}
