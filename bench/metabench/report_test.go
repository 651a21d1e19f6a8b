package metabench

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"
	"time"

	"cairn/bench"
)

func sampleReport() *Report {
	ops := Ops()
	a := EngineResult{Label: "redis", URL: "redis://:****@127.0.0.1/1", Engine: "redis", Samples: map[string]Sample{}}
	b := EngineResult{Label: "sqlite3", URL: "sqlite3:///tmp/x.db", Engine: "sqlite3", Samples: map[string]Sample{}}
	for i, op := range ops {
		a.Samples[op.Name] = Sample{N: 10, Elapsed: time.Duration(10*(i+1)) * time.Millisecond, RoundTrips: 10}
		b.Samples[op.Name] = Sample{N: 20, Elapsed: time.Duration(40*(i+1)) * time.Millisecond, RoundTrips: 50}
	}
	return &Report{Env: bench.Machine(), Benchtime: Benchtime{D: time.Second}, Ops: ops, Engines: []EngineResult{a, b}}
}

func TestMarkdownTable(t *testing.T) {
	var buf bytes.Buffer
	if err := sampleReport().WriteMarkdown(&buf, map[string]string{"files": "r-files.svg"}); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	rows := map[string]string{}
	for _, line := range strings.Split(md, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) == 5 && rows[strings.TrimSpace(cells[1])] == "" {
			// The first table with this row name is the latency table.
			rows[strings.TrimSpace(cells[1])] = line
		}
	}
	if !strings.Contains(md, "| | redis | sqlite3 |") {
		t.Errorf("no table header naming both engines:\n%s", md)
	}
	// mkdir: redis 10ms/10 = 1000 µs; sqlite3 40ms/20 = 2000 µs, 2.0 times.
	if got, want := rows["mkdir"], "| mkdir | 1000 | 2000 (2.0) |"; got != want {
		t.Errorf("mkdir row %q, want %q", got, want)
	}
	for _, op := range Ops() {
		if rows[op.Name] == "" {
			t.Errorf("no row for %s", op.Name)
		}
	}
	// Round trips: 1 per op on redis, 2.5 on sqlite3.
	if !strings.Contains(md, "| mkdir | 1.00 | 2.50 |") {
		t.Errorf("no round-trip row for mkdir:\n%s", md)
	}
	if !strings.Contains(md, "![files](r-files.svg)") || strings.Contains(md, "directories.svg") {
		t.Errorf("chart links wrong:\n%s", md)
	}
	if strings.Contains(md, "secret") || !strings.Contains(md, Caches) {
		t.Errorf("report leaks a password or does not say which caches were on:\n%s", md)
	}
}

func TestJSONRecords(t *testing.T) {
	var buf bytes.Buffer
	if err := sampleReport().WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2*len(Ops()) {
		t.Fatalf("%d records, want %d", len(lines), 2*len(Ops()))
	}
	var r map[string]any
	if err := json.Unmarshal([]byte(lines[len(Ops())]), &r); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"engine": "sqlite3", "op": "mkdir", "ns_per_op": 2e6, "rtt_per_op": 2.5}
	for k, v := range want {
		if r[k] != v {
			t.Errorf("record %v: %s = %v, want %v", r, k, r[k], v)
		}
	}
	if len(r) != len(want) {
		t.Errorf("record %v has fields beyond %v", r, want)
	}
}

func TestSVG(t *testing.T) {
	rep := sampleReport()
	for _, g := range Groups {
		svg := rep.SVG(g)
		if err := xml.Unmarshal(svg, new(struct{})); err != nil {
			t.Errorf("chart %s is not well-formed XML: %v", g, err)
		}
		for _, op := range rep.Ops {
			if in := bytes.Contains(svg, []byte(">"+op.Name+"<")); in != (op.Group == g) {
				t.Errorf("chart %s shows %s: %v", g, op.Name, in)
			}
		}
		// One bar per engine and operation of the group, plus the legend.
		n := 0
		for _, op := range rep.Ops {
			if op.Group == g {
				n++
			}
		}
		if got := bytes.Count(svg, []byte("<rect")); got != 1+2+2*n {
			t.Errorf("chart %s has %d rects, want %d", g, got, 1+2+2*n)
		}
	}
	if rep.SVG("nothing") != nil {
		t.Error("a chart for a group without operations")
	}
}

func TestOpsTable(t *testing.T) {
	want := "mkdir mvdir rmdir readdir_10 readdir_1k mknod create rename unlink lookup getattr setattr access setxattr getxattr removexattr listxattr_1 listxattr_10 link symlink newchunk write read_1 read_10"
	var names []string
	for _, op := range Ops() {
		names = append(names, op.Name)
		found := false
		for _, g := range Groups {
			found = found || g == op.Group
		}
		if !found || op.Prepare == nil || op.Does == "" {
			t.Errorf("%s: group %q, prepare set %v, description %q", op.Name, op.Group, op.Prepare != nil, op.Does)
		}
	}
	if got := strings.Join(names, " "); got != want {
		t.Errorf("operations\n%s\nwant the seed's\n%s", got, want)
	}
}

func TestParseTargets(t *testing.T) {
	ts, err := ParseTargets([]string{"redis://127.0.0.1/1", "Redis-Everysec=redis://127.0.0.1/2", "sqlite3:///a.db?x=1", "redis://127.0.0.1/3"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, x := range ts {
		got = append(got, x.Label+" "+x.URL)
	}
	want := "redis redis://127.0.0.1/1,Redis-Everysec redis://127.0.0.1/2,sqlite3 sqlite3:///a.db?x=1,redis-3 redis://127.0.0.1/3"
	if strings.Join(got, ",") != want {
		t.Errorf("targets %q, want %q", strings.Join(got, ","), want)
	}
	for _, bad := range [][]string{nil, {"nourl"}, {"a=mem://", "a=mem://"}} {
		if _, err := ParseTargets(bad); err == nil {
			t.Errorf("ParseTargets(%q) accepted", bad)
		}
	}
}

func TestMultiple(t *testing.T) {
	for x, want := range map[float64]string{2.04: "2.0", 1: "1.0", 0.96: "1.0", 0.5: "0.5", 0.018: "0.018", 0.123: "0.12", 0: "0.0", 96.04: "96.0"} {
		if got := multiple(x); got != want {
			t.Errorf("multiple(%v) = %q, want %q", x, got, want)
		}
	}
}

func TestMedian(t *testing.T) {
	s := func(ms int) Sample { return Sample{N: 1, Elapsed: time.Duration(ms) * time.Millisecond} }
	if got := Median([]Sample{s(5), s(1), s(9)}); got != s(5) {
		t.Errorf("median of 5, 1, 9 ms: %v", got)
	}
	if got := Median([]Sample{s(4), s(2)}); got != s(2) {
		t.Errorf("median of 4, 2 ms: %v, want the lower middle", got)
	}
	if got := Median([]Sample{s(3)}); got != s(3) {
		t.Errorf("median of one: %v", got)
	}
}
