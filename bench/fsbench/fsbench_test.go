package fsbench

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"cairn/bench/phase"
)

// TestLocalDirectory runs every phase, small, on a local directory: the
// same rows as on a mount, the mount's own figures marked as absent, and
// nothing left behind.
func TestLocalDirectory(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{Path: dir, Threads: 2, BigFileSize: 3<<20 + 5, BlockSize: 1 << 20, SmallFileSize: 10 << 10, SmallFiles: 4, DropCaches: false}
	var progress phase.Counter
	res, err := Run(cfg, &progress)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Join(progress.Lines, "\n")
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "not on a cairn mount") || !strings.Contains(lines, res.Notes[0]) {
		t.Errorf("notes %q, progress %q: want one saying the directory is not on a cairn mount", res.Notes, lines)
	}
	// Each phase's progress counts to the total it announced.
	big, files := 2*cfg.BigFileSize, int64(2*cfg.SmallFiles)
	want := map[string]int64{"Write big file": big, "Read big file": big, "Write small file": files, "Read small file": files, "Stat file": files}
	for name, total := range want {
		if progress.Totals[name] != total || progress.Done[name] != total {
			t.Errorf("progress of %s: %d of %d done, want %d of %d", name, progress.Done[name], progress.Totals[name], total, total)
		}
		if !strings.Contains(lines, "  "+name+" ") {
			t.Errorf("no result line for %s:\n%s", name, lines)
		}
	}
	var names []string
	for _, p := range res.Phases {
		names = append(names, p.Name)
		if p.Value <= 0 || p.Cost <= 0 || p.Seconds <= 0 {
			t.Errorf("%s: value %v, cost %v, seconds %v; want all positive", p.Name, p.Value, p.Cost, p.Seconds)
		}
	}
	if got, want := strings.Join(names, ","), "Write big file,Read big file,Write small file,Read small file,Stat file"; got != want {
		t.Errorf("phases %s, want %s", got, want)
	}
	for i, m := range res.Metrics {
		if m.Name != metricNames[i] || m.Note != "not a cairn mount" {
			t.Errorf("mount metric %+v, want %q marked not a cairn mount", m, metricNames[i])
		}
	}
	if res.Mount == nil || res.Mount.Cairn {
		t.Errorf("mount of a temporary directory: %+v", res.Mount)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}

	var text bytes.Buffer
	if err := res.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range append(append(names, metricNames...), "ITEM", "VALUE", "COST", "MiB/s", "files/s", "page cache: kept") {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text output lacks %q:\n%s", want, text.String())
		}
	}
	var js bytes.Buffer
	if err := res.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Phases []Phase  `json:"phases"`
		Mets   []Metric `json:"mount_metrics"`
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || len(back.Phases) != 5 || len(back.Mets) != len(metricNames) {
		t.Errorf("JSON output (%v): %s", err, js.String())
	}
}

func TestWrittenBytes(t *testing.T) {
	p := t.TempDir() + "/f"
	if err := writeFile(p, 2<<20+3, 1<<20, func(int64) {}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(p)
	if err != nil || len(data) != 2<<20+3 {
		t.Fatalf("wrote %d bytes (%v), want %d", len(data), err, 2<<20+3)
	}
	if bytes.Count(data[:4096], data[:1]) > 512 {
		t.Errorf("written data is not varied enough to resist compression")
	}
}

func TestParseMountinfo(t *testing.T) {
	m, ok := parseMountinfo(`412 30 0:52 / /mnt/my\040vol rw,nosuid,nodev,relatime shared:220 - fuse.cairn cairn:vol rw,user_id=0,group_id=0`)
	if !ok || m.Point != "/mnt/my vol" || m.FSType != "fuse.cairn" || !m.Cairn {
		t.Errorf("parsed %+v, %v", m, ok)
	}
	m, ok = parseMountinfo(`25 1 254:1 / / rw,relatime - ext4 /dev/vda rw`)
	if !ok || m.Point != "/" || m.Cairn {
		t.Errorf("parsed %+v, %v", m, ok)
	}
	if !within("/mnt/a/b", "/mnt/a") || within("/mnt/ab", "/mnt/a") || !within("/x", "/") {
		t.Error("within is wrong")
	}
	// The innermost mount wins: /proc/self lies on /proc, which lies on /.
	if m := FindMount("/proc/self/fd"); m == nil || m.Point != "/proc" || m.FSType != "proc" {
		t.Errorf("FindMount(/proc/self/fd) = %+v, want the proc mount at /proc", m)
	}
}

// TestMetricRows checks the averages over a run from two .stats snapshots.
func TestMetricRows(t *testing.T) {
	parse := func(s string) snapshot {
		var st stats
		if err := json.Unmarshal([]byte(s), &st); err != nil {
			t.Fatal(err)
		}
		return &st
	}
	before := parse(`{"ops":{"fuse.read":{"count":10,"mean_us":100},"meta.lookup":{"count":4,"mean_us":50}},
		"blocks":{"puts":2,"put_nanos":4000000,"gets":0,"get_nanos":0,"mem_hits":1,"cache_hits":0,"cache_misses":1}}`)
	after := parse(`{"ops":{"fuse.read":{"count":20,"mean_us":150},"fuse.write":{"count":10,"mean_us":300},"meta.lookup":{"count":4,"mean_us":50}},
		"blocks":{"puts":4,"put_nanos":10000000,"gets":0,"get_nanos":0,"mem_hits":4,"cache_hits":2,"cache_misses":3}}`)
	rows := metricRows(&Mount{Cairn: true}, before, after)
	// FUSE: (20*150 - 10*100 + 10*300) / 20 = 250 µs. Puts: 6 ms / 2.
	// Hits: 3 + 2 of 5 + 2.
	want := []Metric{
		{Name: "FUSE operation", Value: 0.25, Unit: "ms/op"},
		{Name: "Meta transaction", Note: "none during the run"},
		{Name: "Put object", Value: 3, Unit: "ms/op"},
		{Name: "Get object", Note: "none during the run"},
		{Name: "Cache hit rate", Value: 500.0 / 7, Unit: "%"},
	}
	for i := range want {
		if rows[i] != want[i] {
			t.Errorf("row %d: %+v, want %+v", i, rows[i], want[i])
		}
	}
	for _, r := range metricRows(&Mount{Cairn: true}, nil, nil) {
		if r.Note != "mount metrics: not available" {
			t.Errorf("a cairn mount without .stats: %+v", r)
		}
	}
}
