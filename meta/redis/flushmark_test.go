package redis

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"cairn/internal/testenv"
	"cairn/meta"
	"cairn/meta/metatest"
)

// TestFlushMarkLostAnswer loses the answer of a client's flush after
// Redis applied it, once under the statistics' write and once under the
// quotas': the flush fails, the next one sends the same batch again, and
// its mark makes it count once. Every directory's statistics and the
// quota's usage must then equal a full count. The engine never retries a
// command by itself (MaxRetries -1): the client's second flush is what
// sends it again, as a retried EVALSHA would.
func TestFlushMarkLostAnswer(t *testing.T) {
	ctx := context.Background()
	s := server(t)
	probe := openURL(t, s.URL(0))
	proxy := testenv.NewCutter(t, s.Addr())
	sha := []byte(probe.scripts["addstats"].sha)
	e := openURL(t, fmt.Sprintf("redis://%s/0", proxy.Addr()))
	f := meta.Format{Name: "test", UUID: "u", Storage: "mem", BlockSize: 4 << 20, Compression: "none", Version: meta.FormatVersion}
	if err := e.Init(ctx, f, false); err != nil {
		t.Fatalf("Init: %v", err)
	}
	c := meta.NewClient(e, meta.ClientConfig{Heartbeat: time.Hour})
	if err := c.Start(ctx); err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { c.Close(ctx) })

	dir, _, err := c.Mknod(ctx, meta.RootCred, meta.RootIno, "d", meta.TypeDirectory, 0o755, 0, "")
	if err != nil {
		t.Fatalf("Mknod d: %v", err)
	}
	if _, err := c.SetQuota(ctx, dir, 0, 1000); err != nil {
		t.Fatalf("SetQuota: %v", err)
	}
	files := 0
	work := func() {
		for range 3 {
			files++
			ino, _, err := c.Mknod(ctx, meta.RootCred, dir, fmt.Sprintf("f%d", files), meta.TypeFile, 0o644, 0, "")
			if err != nil {
				t.Fatalf("Mknod f%d: %v", files, err)
			}
			id, err := c.NewSliceID(ctx)
			if err != nil {
				t.Fatalf("NewSliceID: %v", err)
			}
			if _, _, err := c.Write(ctx, ino, 0, meta.Slice{ID: id, Size: 5000, Len: 5000}, time.Now().UnixNano()); err != nil {
				t.Fatalf("Write f%d: %v", files, err)
			}
		}
	}
	// skip 0 loses the statistics' answer, 1 the quotas' (written after).
	// Before the batch is sent again, the server must have applied it
	// (else the mark would not be what the test holds to count once).
	applied := []func() []string{func() []string { return metatest.StatsMiscounted(t, e) }, func() []string { return metatest.QuotaMiscounted(t, e, dir) }}
	for skip, what := range []string{"statistics", "quota usage"} {
		lostFlush(t, c, proxy, skip, func(req []byte) bool { return bytes.Contains(req, sha) }, what, work, applied[skip])
		checkCounted(t, e, dir, what)
	}
	checkMarksHidden(t, e)
}

// checkMarksHidden wants the live client's two marks' records in the
// statistics' inodes hash, and neither in a volume's dump: checkCounted
// already found none among AllDirStats' directories.
func checkMarksHidden(t *testing.T, e *Engine) {
	t.Helper()
	ctx := context.Background()
	_, inodesKey := e.dirStatKeys()
	fields, err := e.rdb.HKeys(ctx, inodesKey).Result()
	if err != nil {
		t.Fatalf("HKEYS %s: %v", inodesKey, err)
	}
	marks := 0
	for _, f := range fields {
		if ino, err := strconv.ParseUint(f, 10, 64); err == nil && meta.IsFlushMark(meta.Ino(ino)) {
			marks++
		}
	}
	if marks != 2 {
		t.Errorf("%d flush marks' records in %s, want 2 (statistics and quotas): %q", marks, inodesKey, fields)
	}
	d, _ := meta.VolumeDumper(e)
	var sink recordSink
	if err := d.Dump(ctx, &sink); err != nil {
		t.Fatalf("Dump: %v", err)
	}
	stats := 0
	for _, r := range sink.records {
		if r.Kind == meta.DumpDirStat {
			stats++
			if meta.IsFlushMark(r.Ino) {
				t.Errorf("the dump carries flush mark %d as a directory's statistics %+v", r.Ino, r.DirStat)
			}
		}
	}
	if stats == 0 {
		t.Errorf("the dump carries no directory statistics")
	}
}

// lostFlush does work, then flushes with the answer of the write skip
// lost: the flush must fail and the next one succeed. The client's own
// flush, every second, may take the cut or write the work first; then
// the round is played again.
func lostFlush(t *testing.T, c *meta.Client, proxy *testenv.Cutter, skip int, match func([]byte) bool, what string, work func(), miscounted func() []string) {
	t.Helper()
	ctx := context.Background()
	for round := 0; round < 5; round++ {
		work()
		cuts := proxy.Cuts()
		proxy.Arm(true, skip, match)
		err := c.FlushDirStats(ctx)
		proxy.Disarm()
		if err == nil {
			t.Logf("round %d: the flush went through (the client's own flush was in the way); again", round)
			if err := c.FlushDirStats(ctx); err != nil {
				t.Fatalf("flush after a round that did not fail: %v", err)
			}
			continue
		}
		if proxy.Cuts() != cuts+1 {
			t.Fatalf("flush failed without the proxy losing an answer: %v", err)
		}
		t.Logf("the %s answer was lost: %v", what, err)
		testenv.Eventually(t, "applied: the "+what+" whose answer was lost", func() bool { return len(miscounted()) == 0 })
		if err := c.FlushDirStats(ctx); err != nil {
			t.Fatalf("flush after the lost %s answer: %v", what, err)
		}
		return
	}
	t.Fatalf("no flush of the %s lost its answer in 5 rounds", what)
}

// checkCounted wants every directory's statistics and the quota's usage
// on dir equal to a full count.
func checkCounted(t *testing.T, e *Engine, dir meta.Ino, when string) {
	t.Helper()
	for _, wrong := range append(metatest.StatsMiscounted(t, e), metatest.QuotaMiscounted(t, e, dir)...) {
		t.Errorf("after a lost %s answer: %s", when, wrong)
	}
}
