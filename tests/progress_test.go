package tests

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"cairn/internal/testenv"
)

// TestProgressOnTerminal: a long command draws a progress bar on a
// terminal (here a pseudo-terminal that script(1) opens), draws nothing
// with --quiet, and nothing when stderr is not a terminal.
func TestProgressOnTerminal(t *testing.T) {
	scriptBin := testenv.Binary(t, []string{"script"})
	v := formatVolume(t)
	inTerminal := terminalRunner(t, scriptBin)
	dump := func(flags ...string) []string {
		return append([]string{"dump", v.meta, filepath.Join(tempDir(t), "d.json")}, flags...)
	}
	if out := inTerminal(dump()...); !strings.Contains(out, "dumped") || !strings.Contains(out, "100%") {
		t.Errorf("dump in a terminal shows no finished progress bar:\n%q", out)
	}
	if out := inTerminal(dump("--quiet")...); strings.Contains(out, "dumped") {
		t.Errorf("dump --quiet in a terminal shows progress:\n%q", out)
	}
	if out := inTerminal("gc", v.meta); !strings.Contains(out, "records read") {
		t.Errorf("gc in a terminal shows no status line:\n%q", out)
	}
	if r := runCairn(t, dump()...); r.stderr != "" {
		t.Errorf("dump with stderr not a terminal wrote %q", r.stderr)
	}
}

// terminalRunner returns a function that runs cairn with args on a
// pseudo-terminal that script(1) opens, and returns what it wrote there.
func terminalRunner(t *testing.T, scriptBin string) func(args ...string) string {
	return func(args ...string) string {
		t.Helper()
		quoted := make([]string, len(args))
		for i, a := range args {
			quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out, err := exec.Command(scriptBin, "-qec", cairnBin+" "+strings.Join(quoted, " "), "/dev/null").CombinedOutput()
		if err != nil {
			t.Fatalf("cairn %v in a terminal: %v\n%s", args, err, out)
		}
		return string(out)
	}
}

// TestBenchmarkProgressOnTerminal: on a terminal each phase of mdtest,
// objbench and bench is a progress bar, which gives way to the phase's
// result line; piped, the lines alone are written, without a bar.
func TestBenchmarkProgressOnTerminal(t *testing.T) {
	scriptBin := testenv.Binary(t, []string{"script"})
	inTerminal := terminalRunner(t, scriptBin)
	v := formatVolume(t)
	for _, c := range []struct {
		args     []string
		bar      string // what a finished bar of one phase shows
		resultOn string // the result line of that phase
	}{
		{[]string{"mdtest", v.meta, "/md", "--files", "5", "--dirs", "2"}, "File creation 100% |", "  File creation "},
		{[]string{"objbench", "--storage", "mem", "--objects", "8", "--block-size", "64K", "--small-object-size", "4K"}, "put 64KiB 100% |", "put 64KiB "},
		{[]string{"bench", tempDir(t), "--big-file-size", "1M", "--small-files", "4", "--small-file-size", "4K", "--drop-caches=false"}, "Write big file 100% |", "  Write big file "},
	} {
		out := inTerminal(c.args...)
		if !strings.Contains(out, c.bar) || !strings.Contains(out, c.resultOn) {
			t.Errorf("cairn %s in a terminal: no finished bar %q and result %q:\n%q", c.args[0], c.bar, c.resultOn, out)
		}
		if out := inTerminal(append(c.args, "--quiet")...); strings.Contains(out, "100% |") {
			t.Errorf("cairn %s --quiet in a terminal draws a bar:\n%q", c.args[0], out)
		}
		r := runCairn(t, c.args...)
		if r.code != 0 || strings.Contains(r.stderr+r.stdout, "%") || strings.Contains(r.stderr+r.stdout, "\r") || !strings.Contains(r.stderr+r.stdout, c.resultOn) {
			t.Errorf("cairn %s piped: exit %d, stdout %q, stderr %q; want the result lines and no bar", c.args[0], r.code, r.stdout, r.stderr)
		}
	}
}
