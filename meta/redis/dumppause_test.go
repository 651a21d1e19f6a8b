package redis

import (
	"context"
	"fmt"
	"testing"
	"time"

	"cairn/meta"
)

// TestDumpPause holds a volume's dump pause the way Dump does and checks
// what it stops: changes to that volume wait (and are made once the last
// dump is out), while other databases and keys of the same server, and
// reads of the volume, go on; a dumper that dies without lifting its pause
// holds the volume only until the pause expires.
func TestDumpPause(t *testing.T) {
	s := server(t)
	ctx := t.Context()
	f := meta.Format{Name: "test", UUID: "u", Storage: "mem", BlockSize: 4 << 20, Compression: "none", Version: meta.FormatVersion}
	volume := func(db int) *Engine {
		e := fresh(t, s, db)
		if err := e.Init(ctx, f, false); err != nil {
			t.Fatalf("Init: %v", err)
		}
		return e
	}
	dumped, other := volume(12), volume(13)
	writer := openURL(t, s.URL(12)) // another client of the dumped volume
	var ino meta.Ino = 100
	mkdir := func(e *Engine) chan error {
		ino++
		done := make(chan error, 1)
		go func(ino meta.Ino) {
			_, err := e.Mknod(ctx, meta.RootCred, meta.RootIno, fmt.Sprint("d", ino), ino, meta.TypeDirectory, 0755, 0, "")
			done <- err
		}(ino)
		return done
	}
	// within fails the test if done does not report success in time; the
	// bound only turns a hang into a failure.
	within := func(what string, done chan error) {
		t.Helper()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%s is still held up", what)
		}
	}
	// waitsFor returns once writer has been answered PAUSED more than n times.
	waitsFor := func(n uint64) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); writer.stats.pauseWaits.Load() <= n; {
			if time.Now().After(deadline) {
				t.Fatal("a change of the paused volume was never answered PAUSED")
			}
			time.Sleep(time.Millisecond)
		}
	}

	first, err := dumped.pauseVolume(ctx, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	held := mkdir(writer)
	waitsFor(0)
	within("a change to another database of the server", mkdir(other))
	within("a write of another key in the paused volume's database", func() chan error {
		done := make(chan error, 1)
		done <- dumped.rdb.Set(ctx, "unrelated", "x", 0).Err()
		return done
	}())
	if _, _, err := writer.Lookup(ctx, meta.RootIno, "nothing"); err != meta.ErrNotFound {
		t.Fatalf("Lookup in the paused volume: %v, want ErrNotFound", err)
	}

	second, err := dumped.pauseVolume(ctx, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if err := first.lift(ctx); err != nil {
		t.Fatal(err)
	}
	waitsFor(writer.stats.pauseWaits.Load())
	select {
	case err := <-held:
		t.Fatalf("the change went through while a second dump still held the pause (%v)", err)
	default:
	}
	if err := second.lift(ctx); err != nil {
		t.Fatal(err)
	}
	within("the change held up by the pause, after the last dump", held)
	if n, _ := dumped.rdb.Exists(ctx, dumped.prefix+":dumping").Result(); n != 0 {
		t.Errorf("the pause key is left after every dump lifted its pause")
	}

	// A dumper that dies holds its member without renewing or lifting it.
	dead := &dumpPause{e: dumped, member: "dead", ttl: 300 * time.Millisecond}
	if err := dead.hold(ctx); err != nil {
		t.Fatal(err)
	}
	before := writer.stats.pauseWaits.Load()
	within("a change after a dumper died holding the pause", mkdir(writer))
	if writer.stats.pauseWaits.Load() == before {
		t.Errorf("the change was not paused by the dead dumper's pause before it expired")
	}
}

// TestDumpDoesNotPauseTheServer dumps a volume while another database of
// the same server is written: with a server-wide pause (CLIENT PAUSE) the
// write would wait for the dump.
func TestDumpDoesNotPauseTheServer(t *testing.T) {
	s := server(t)
	ctx := t.Context()
	e := fresh(t, s, 12)
	f := meta.Format{Name: "test", UUID: "u", Storage: "mem", BlockSize: 4 << 20, Compression: "none", Version: meta.FormatVersion}
	if err := e.Init(ctx, f, false); err != nil {
		t.Fatal(err)
	}
	other := fresh(t, s, 13)
	w := &blockingWriter{inHeader: make(chan struct{}), release: make(chan struct{})}
	dumped := make(chan error, 1)
	go func() { dumped <- e.Dump(ctx, w) }()
	<-w.inHeader // the dump holds its pause now
	wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	err := other.rdb.Set(wctx, "k", "v", 0).Err()
	close(w.release)
	if err != nil {
		t.Fatalf("a write to another database during a dump: %v", err)
	}
	if err := <-dumped; err != nil {
		t.Fatal(err)
	}
}

// blockingWriter is a meta.DumpWriter that stops the dump at its header
// until released.
type blockingWriter struct {
	inHeader, release chan struct{}
}

func (w *blockingWriter) Header(meta.DumpHeader) error {
	close(w.inHeader)
	<-w.release
	return nil
}

func (w *blockingWriter) Record(*meta.DumpRecord) error { return nil }
