package accesslog

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestRecordRoundTrip(t *testing.T) {
	at := time.Date(2026, 11, 24, 5, 50, 1, 123456000, time.UTC)
	cases := []struct {
		name   string
		record Record
		line   string
		target string
		failed bool
	}{
		{"lookup of a missing name",
			Record{Time: at, Uid: 1000, Gid: 100, Pid: 42, Op: "lookup", Args: `1,"a.txt"`, Result: "ENOENT", Duration: 123 * time.Microsecond},
			`2026-11-24T05:50:01.123456Z [uid:1000,gid:100,pid:42] lookup (1,"a.txt"): ENOENT <0.000123>`,
			"1/a.txt", true},
		{"read with a reply",
			Record{Time: at, Op: "read", Args: "7,fh=3,off=0,size=4096", Result: "OK bytes=4096", Duration: 2 * time.Second},
			`2026-11-24T05:50:01.123456Z [uid:0,gid:0,pid:0] read (7,fh=3,off=0,size=4096): OK bytes=4096 <2.000000>`,
			"7", false},
		{"a name that looks like the separators",
			Record{Time: at, Op: "create", Args: `1,"x): OK <1.0>\n"`, Result: "OK ino=9", Duration: time.Millisecond},
			`2026-11-24T05:50:01.123456Z [uid:0,gid:0,pid:0] create (1,"x): OK <1.0>\n"): OK ino=9 <0.001000>`,
			"1/x): OK <1.0>\n", false},
		{"rename names the source",
			Record{Time: at, Op: "rename", Args: `1,"a",2,"b"`, Result: "EXDEV"},
			`2026-11-24T05:50:01.123456Z [uid:0,gid:0,pid:0] rename (1,"a",2,"b"): EXDEV <0.000000>`,
			"1/a", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			line := string(c.record.Append(nil))
			if line != c.line+"\n" {
				t.Fatalf("Append:\n got %q\nwant %q", line, c.line+"\n")
			}
			got, err := Parse(line)
			if err != nil {
				t.Fatalf("Parse(%q): %v", line, err)
			}
			if got != c.record {
				t.Errorf("Parse gave %+v, want %+v", got, c.record)
			}
			if got.Target() != c.target {
				t.Errorf("Target = %q, want %q", got.Target(), c.target)
			}
			if got.Failed() != c.failed {
				t.Errorf("Failed = %v, want %v", got.Failed(), c.failed)
			}
		})
	}
}

func TestParseRejects(t *testing.T) {
	for _, line := range []string{
		"",
		"# 3 lines dropped: this reader fell behind",
		"hello world",
		"2026-11-24T05:50:01.123456Z [uid:0,gid:0,pid:0] lookup (1,\"a\"): OK",
		"yesterday [uid:0,gid:0,pid:0] lookup (1): OK <0.1>",
		"2026-11-24T05:50:01.123456Z [uid:x] lookup (1): OK <0.1>",
	} {
		if r, err := Parse(line); !errors.Is(err, ErrNotRecord) {
			t.Errorf("Parse(%q) = %+v, %v; want ErrNotRecord", line, r, err)
		}
	}
}

func line(op, args, result string, d time.Duration) []byte {
	r := Record{Time: time.Unix(1, 0), Op: op, Args: args, Result: result, Duration: d}
	return r.Append(nil)
}

func TestStreamIdleWithoutReaders(t *testing.T) {
	var s Stream
	if s.Active() {
		t.Fatal("a stream nobody reads says it is active")
	}
	a, b := s.Open(), s.Open()
	if !s.Active() {
		t.Fatal("a stream with readers says it is idle")
	}
	a.Close()
	a.Close() // twice is harmless
	if !s.Active() {
		t.Fatal("one reader left, yet the stream says it is idle")
	}
	b.Close()
	if s.Active() {
		t.Fatal("all readers closed, yet the stream says it is active")
	}
}

func TestStreamEveryReaderGetsEveryLine(t *testing.T) {
	var s Stream
	readers := []*Reader{s.Open(), s.Open(), s.Open()}
	s.Write(line("lookup", `1,"a"`, "OK", time.Millisecond))
	s.Write(line("getattr", "2", "OK", time.Millisecond))
	for i, r := range readers {
		buf := make([]byte, 4096)
		n, err := r.Read(nil, buf)
		if err != nil {
			t.Fatalf("reader %d: %v", i, err)
		}
		if got := strings.Count(string(buf[:n]), "\n"); got != 2 {
			t.Errorf("reader %d got %d lines, want 2: %q", i, got, buf[:n])
		}
		r.Close()
	}
}

func TestStreamReadWholeLines(t *testing.T) {
	var s Stream
	r := s.Open()
	defer r.Close()
	one := line("getattr", "2", "OK", time.Millisecond)
	s.Write(one)
	s.Write(one)
	buf := make([]byte, len(one)+5)
	n, err := r.Read(nil, buf)
	if err != nil || n != len(one) {
		t.Fatalf("Read = %d, %v; want one whole line of %d bytes", n, err, len(one))
	}
	n, err = r.Read(nil, buf)
	if err != nil || n != len(one) {
		t.Fatalf("second Read = %d, %v; want the second line", n, err)
	}
}

func TestStreamSlowReaderDrops(t *testing.T) {
	var s Stream
	slow, fast := s.Open(), s.Open()
	defer slow.Close()
	defer fast.Close()
	one := line("getattr", "2", "OK", time.Millisecond)
	fits := ReaderBuffer / len(one)
	const extra = 25
	var fastLines int
	buf := make([]byte, 1<<16)
	for i := 0; i < fits+extra; i++ {
		s.Write(one)
		// The fast reader keeps up.
		n, err := fast.Read(nil, buf)
		if err != nil {
			t.Fatal(err)
		}
		fastLines += strings.Count(string(buf[:n]), "\n")
	}
	if fastLines != fits+extra {
		t.Errorf("the fast reader got %d lines, want %d", fastLines, fits+extra)
	}
	// The slow reader reads now: what fitted, then the note, then what
	// came after it had room again.
	var got strings.Builder
	for got.Len() < fits*len(one) {
		n, err := slow.Read(nil, buf)
		if err != nil {
			t.Fatal(err)
		}
		got.Write(buf[:n])
	}
	s.Write(line("lookup", `1,"after"`, "OK", 0))
	for !strings.Contains(got.String(), "after") {
		n, err := slow.Read(nil, buf)
		if err != nil {
			t.Fatal(err)
		}
		got.Write(buf[:n])
	}
	lines := strings.Split(strings.TrimSuffix(got.String(), "\n"), "\n")
	if len(lines) != fits+2 {
		t.Fatalf("the slow reader got %d lines, want %d kept, the note and the later line", len(lines), fits)
	}
	var sum Summary
	sum.AddLine(lines[fits])
	if sum.Dropped != extra {
		t.Errorf("the note says %q, want %d dropped", lines[fits], extra)
	}
}

func TestStreamReadWaitsAndCancels(t *testing.T) {
	var s Stream
	r := s.Open()
	cancel := make(chan struct{})
	done := make(chan error)
	go func() {
		_, err := r.Read(cancel, make([]byte, 100))
		done <- err
	}()
	close(cancel)
	if err := <-done; !errors.Is(err, ErrCanceled) {
		t.Errorf("a canceled Read returned %v, want ErrCanceled", err)
	}
	go func() {
		_, err := r.Read(nil, make([]byte, 100))
		done <- err
	}()
	r.Close()
	if err := <-done; !errors.Is(err, ErrClosed) {
		t.Errorf("a Read on a closed reader returned %v, want ErrClosed", err)
	}
}

func TestStreamConcurrentWriters(t *testing.T) {
	var s Stream
	r := s.Open()
	defer r.Close()
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				s.Write(line("lookup", fmt.Sprintf(`1,"w%d-%d"`, w, i), "OK", 0))
			}
		}(w)
	}
	wg.Wait()
	var sum Summary
	buf := make([]byte, 1<<20)
	for sum.Requests < 400 {
		n, err := r.Read(nil, buf)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.SplitAfter(string(buf[:n]), "\n") {
			sum.AddLine(l)
		}
	}
	if sum.Requests != 400 || sum.Skipped != 0 {
		t.Errorf("read %d requests and %d broken lines, want 400 and 0", sum.Requests, sum.Skipped)
	}
}

func TestSummary(t *testing.T) {
	log := strings.Join([]string{
		string(line("lookup", `1,"a"`, "ENOENT", 1*time.Millisecond)),
		string(line("create", `1,"a"`, "OK ino=5 fh=1", 3*time.Millisecond)),
		string(line("write", "5,fh=1,off=0,size=10", "OK bytes=10", 2*time.Millisecond)),
		string(line("write", "5,fh=1,off=10,size=10", "EIO", 4*time.Millisecond)),
		"# 7 lines dropped: this reader fell behind\n",
		"garbage\n",
		string(line("lookup", `1,"b"`, "OK ino=6", 1*time.Millisecond)),
	}, "")
	var s Summary
	for _, l := range strings.SplitAfter(log, "\n") {
		s.AddLine(l)
	}
	if s.Requests != 5 || s.Dropped != 7 || s.Skipped != 1 {
		t.Fatalf("requests %d dropped %d skipped %d, want 5, 7, 1", s.Requests, s.Dropped, s.Skipped)
	}
	ops := s.Operations()
	want := []Total{
		{Key: "write", Count: 2, Errors: 1, Time: 6 * time.Millisecond},
		{Key: "create", Count: 1, Time: 3 * time.Millisecond},
		{Key: "lookup", Count: 2, Errors: 1, Time: 2 * time.Millisecond},
	}
	if fmt.Sprint(ops) != fmt.Sprint(want) {
		t.Errorf("by operation:\n got %v\nwant %v", ops, want)
	}
	if avg := ops[0].Average(); avg != 3*time.Millisecond {
		t.Errorf("average write %v, want 3ms", avg)
	}
	top := s.Targets(2)
	wantTop := []Total{
		{Key: "5", Count: 2, Errors: 1, Time: 6 * time.Millisecond},
		{Key: "1/a", Count: 2, Errors: 1, Time: 4 * time.Millisecond},
	}
	if fmt.Sprint(top) != fmt.Sprint(wantTop) {
		t.Errorf("top targets:\n got %v\nwant %v", top, wantTop)
	}
}
