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
	inTerminal := func(args ...string) string {
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
