package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"cairn/bench/metabench"
	"cairn/internal/testenv"
	"cairn/meta/engines"
)

// runCaptured runs the cairn command line in this process and returns its
// exit status, standard output and standard error (the progress that
// commands write to os.Stderr, then run's error line).
func runCaptured(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	dir := t.TempDir()
	stdout, err := os.Create(filepath.Join(dir, "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	progress, err := os.Create(filepath.Join(dir, "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	savedOut, savedErr := os.Stdout, os.Stderr
	os.Stdout, os.Stderr = stdout, progress
	var stderr bytes.Buffer
	code := run(args, &stderr)
	os.Stdout, os.Stderr = savedOut, savedErr
	stdout.Close()
	progress.Close()
	out, err := os.ReadFile(stdout.Name())
	if err != nil {
		t.Fatal(err)
	}
	prog, err := os.ReadFile(progress.Name())
	if err != nil {
		t.Fatal(err)
	}
	return code, string(out), string(prog) + stderr.String()
}

func needEngines(t *testing.T, schemes ...string) {
	for _, s := range schemes {
		if !slices.Contains(engines.Schemes(), s) {
			t.Skipf("issue 2: engine %q is not in meta/engines yet", s)
		}
	}
}

// TestBenchEnginesReport runs the whole comparison in its short form and
// checks that the report has a number for every operation and engine, the
// multiple of the first engine, and a chart per group.
func TestBenchEnginesReport(t *testing.T) {
	needEngines(t, "sqlite3", "mem")
	dir := t.TempDir()
	report := filepath.Join(dir, "report.md")
	code, _, stderr := runCaptured(t, "bench", "engines", "--benchtime", "3x", "--count", "2",
		"--meta", "sqlite3://"+filepath.Join(dir, "vol.db"), "--meta", "mem://", "--report", report)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	md, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]string{}
	for _, line := range strings.Split(string(md), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) != 5 {
			continue
		}
		name := strings.TrimSpace(cells[1])
		if _, seen := rows[name]; !seen {
			rows[name] = []string{strings.TrimSpace(cells[2]), strings.TrimSpace(cells[3])}
		}
	}
	if !strings.Contains(stderr, "run 2 of 2") || !strings.Contains(string(md), "measured 2 times") {
		t.Errorf("--count 2 did not measure twice:\n%s", stderr)
	}
	if got := rows[""]; len(got) != 2 || got[0] != "sqlite3" || got[1] != "mem" {
		t.Errorf("table header %q, want the engines sqlite3, mem", got)
	}
	for _, op := range metabench.Ops() {
		r := rows[op.Name]
		if len(r) != 2 || r[0] == "" || r[0] == "—" || !strings.Contains(r[1], " (") {
			t.Errorf("%s: row %q, want µs for sqlite3 and µs (multiple) for mem", op.Name, r)
		}
		if !strings.Contains(stderr, "  "+op.Name+" ") {
			t.Errorf("no progress line for %s:\n%s", op.Name, stderr)
		}
	}
	for _, g := range metabench.Groups {
		svg, err := os.ReadFile(filepath.Join(dir, "report-"+g+".svg"))
		if err != nil || !bytes.HasPrefix(svg, []byte("<svg")) {
			t.Errorf("chart for %s: %v", g, err)
		}
		if !strings.Contains(string(md), "](report-"+g+".svg)") {
			t.Errorf("report does not link the %s chart", g)
		}
	}
	for _, want := range []string{"Measured ", "CPUs", "go1", metabench.Caches} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

func TestBenchEnginesJSON(t *testing.T) {
	needEngines(t, "mem")
	code, out, stderr := runCaptured(t, "bench", "engines", "--json", "--benchtime", "2x", "--meta", "mem://")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(metabench.Ops()) {
		t.Fatalf("%d records, want %d:\n%s", len(lines), len(metabench.Ops()), out)
	}
	for i, l := range lines {
		var r metabench.Record
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.Engine != "mem" || r.Op != metabench.Ops()[i].Name || r.NsPerOp <= 0 {
			t.Errorf("record %q (%v)", l, err)
		}
	}
}

func TestBenchPath(t *testing.T) {
	dir := t.TempDir()
	code, out, stderr := runCaptured(t, "bench", dir, "-p", "2", "--big-file-size", "2M", "--small-files", "3", "--small-file-size", "8K", "--drop-caches=false")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"ITEM", "VALUE", "COST", "Write big file", "Read big file", "Write small file", "Read small file", "Stat file", "FUSE operation", "Meta transaction", "Put object", "Get object", "Cache hit rate"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, out, stderr = runCaptured(t, "bench", dir, "--big-file-size", "1M", "--small-files", "1", "--json", "--drop-caches=false")
	var res struct {
		Phases []struct {
			Name string `json:"name"`
		} `json:"phases"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || len(res.Phases) != 5 {
		t.Errorf("--json: exit %d, output %s, stderr %s", code, out, stderr)
	}
}

// TestBenchBadInput: every mistake is one line and exit status 1.
func TestBenchBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"bench", "engines"},
		{"bench", "engines", "--meta", "nourl"},
		{"bench", "engines", "--meta", "mem://", "--benchtime", "soon"},
		{"bench", "engines", "--meta", "nosuch://x"},
		{"bench", filepath.Join(dir, "missing")},
		{"bench", dir, "-p", "0"},
		{"bench", dir, "--floor"},
		{"bench"},
		{"mdtest", "nosuch://x", "/t"},
		{"mdtest", "mem://"},
	} {
		code, _, stderr := runCaptured(t, args...)
		if code != 1 || strings.Count(stderr, "\n") != 1 || strings.Contains(stderr, "goroutine") {
			t.Errorf("cairn %q: exit %d, stderr %q; want 1 and one line", args, code, stderr)
		}
	}
}

// TestBenchFloorFlags: a flag of the file I/O benchmark with --floor, or
// one of --floor without it, is refused, not ignored.
func TestBenchFloorFlags(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--floor", "--block-size", "2M"}, "--block-size sets the file I/O benchmark"},
		{[]string{"--floor", "--small-files", "2"}, "--small-files sets the file I/O benchmark"},
		{[]string{"--floor", "-p", "0"}, "at least 1"},
		{[]string{"--ops", "2"}, "--ops is an option of --floor"},
		{[]string{"--floor", "--ops", "0"}, "at least 1"},
		{[]string{"--floor"}, "not on a cairn mount"},
	} {
		code, _, stderr := runCaptured(t, append([]string{"bench", dir}, c.args...)...)
		if code != 1 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("cairn bench DIR %q: exit %d, stderr %q; want 1 and one line saying %q", c.args, code, stderr, c.want)
		}
	}
}

func TestMdtestUnformatted(t *testing.T) {
	needEngines(t, "sqlite3")
	code, _, stderr := runCaptured(t, "mdtest", "sqlite3://"+filepath.Join(t.TempDir(), "none.db"), "/t")
	if code != 1 || !strings.Contains(stderr, "cairn format") {
		t.Errorf("mdtest on an empty database: exit %d, %q; want advice to format", code, stderr)
	}
}

// benchRows returns the ITEM column of 'cairn bench' output (the first 18
// characters of each row) and how many of the mount's own rows carried a
// number rather than a reason.
func benchRows(t *testing.T, out string) (items []string, measured int) {
	t.Helper()
	lines := strings.Split(out, "\n")
	start := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "ITEM ") })
	if start < 0 {
		t.Fatalf("no table in:\n%s", out)
	}
	for _, l := range lines[start+1:] {
		if len(l) < 19 {
			break
		}
		item, value := strings.TrimSpace(l[:18]), strings.TrimSpace(l[18:])
		items = append(items, item)
		if slices.Contains(metricsRows, item) && value != "" && value[0] >= '0' && value[0] <= '9' {
			measured++
		}
	}
	return items, measured
}

var metricsRows = []string{"FUSE operation", "Meta transaction", "Put object", "Get object", "Cache hit rate"}

// TestBenchOnMount runs 'cairn bench' on a real cairn mount and on a local
// directory: the same rows in both, and on the mount the mount's own
// figures read from its .stats file.
func TestBenchOnMount(t *testing.T) {
	testenv.FUSE(t)
	needEngines(t, "sqlite3")
	dir := t.TempDir()
	bin := filepath.Join(dir, "cairn")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build cairn: %v\n%s", err, out)
	}
	url := "sqlite3://" + filepath.Join(dir, "vol.db")
	if code, _, stderr := runCaptured(t, "format", url, "benchvol", "--bucket", filepath.Join(dir, "blocks")); code != 0 {
		t.Fatalf("format: %s", stderr)
	}
	mnt := filepath.Join(dir, "mnt")
	if err := os.Mkdir(mnt, 0755); err != nil {
		t.Fatal(err)
	}
	m := testenv.StartMount(t, exec.Command(bin, "mount", url, mnt), mnt)
	defer m.Unmount()

	args := []string{"-p", "2", "--big-file-size", "9M", "--small-files", "5", "--small-file-size", "64K", "--drop-caches=false"}
	code, onMount, stderr := runCaptured(t, append([]string{"bench", mnt}, args...)...)
	if code != 0 {
		t.Fatalf("bench on the mount: exit %d: %s\nmount output: %s", code, stderr, m.Output())
	}
	code, onLocal, stderr := runCaptured(t, append([]string{"bench", t.TempDir()}, args...)...)
	if code != 0 {
		t.Fatalf("bench on a local directory: exit %d: %s", code, stderr)
	}
	mountItems, measured := benchRows(t, onMount)
	localItems, _ := benchRows(t, onLocal)
	if !slices.Equal(mountItems, localItems) || len(mountItems) != 10 {
		t.Errorf("rows differ:\nmount %q\nlocal %q", mountItems, localItems)
	}
	if !strings.Contains(onMount, "fuse.cairn") || strings.Contains(onMount, "not on a cairn mount") {
		t.Errorf("mount not recognised as cairn:\n%s", onMount)
	}
	// Every figure but perhaps the cache hit rate and object gets (reads
	// may be served from memory) must come from the mount.
	if measured < 3 {
		t.Errorf("only %d of the mount's own figures measured:\n%s", measured, onMount)
	}
	if !strings.Contains(onLocal, "not a cairn mount") || !strings.Contains(onLocal, "note: ") {
		t.Errorf("local directory output:\n%s", onLocal)
	}
}

// TestBenchQuiet: --quiet drops the per-phase progress lines, not the
// result.
func TestBenchQuiet(t *testing.T) {
	dir := t.TempDir()
	args := []string{"bench", dir, "--big-file-size", "0", "--small-files", "2", "--drop-caches=false"}
	code, out, stderr := runCaptured(t, args...)
	if code != 0 || !strings.Contains(stderr, "Write small file") {
		t.Fatalf("bench: exit %d, stderr %q; want the phases on stderr", code, stderr)
	}
	code, out, stderr = runCaptured(t, append(args, "--quiet")...)
	if code != 0 || stderr != "" || !strings.Contains(out, "Write small file") {
		t.Errorf("bench --quiet: exit %d, stderr %q, stdout %q; want the result alone", code, stderr, out)
	}
}
