package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestQuietLeavesResults: format prints what it did (stdout) and a warning
// (stderr) without --quiet, neither with it; a result (status) is printed
// either way, and so is an error.
func TestQuietLeavesResults(t *testing.T) {
	needEngines(t, "sqlite3")
	dir := t.TempDir()
	for _, c := range []struct {
		quiet      bool
		name       string
		wantOutput bool
	}{
		{false, "loud", true},
		{true, "quiet", false},
	} {
		metaURL := "sqlite3://" + filepath.Join(dir, c.name+".db")
		args := []string{"format", metaURL, c.name, "--storage", "mem"}
		if c.quiet {
			args = append(args, "-q")
		}
		code, out, stderr := runCaptured(t, args...)
		if code != 0 {
			t.Fatalf("cairn %v: exit %d: %s", args, code, stderr)
		}
		said := strings.Contains(out, "formatted volume")
		warned := strings.Contains(stderr, "warning: --storage mem")
		if said != c.wantOutput || warned != c.wantOutput {
			t.Errorf("cairn %v: stdout %q, stderr %q; want the line and the warning: %v", args, out, stderr, c.wantOutput)
		}
		if c.quiet && stderr != "" {
			t.Errorf("cairn %v wrote to stderr: %q", args, stderr)
		}
		code, out, stderr = runCaptured(t, "status", metaURL, "-q")
		if code != 0 || !strings.Contains(out, c.name) {
			t.Errorf("status -q: exit %d, stdout %q, stderr %q; want the volume's status", code, out, stderr)
		}
		code, _, stderr = runCaptured(t, "format", metaURL, c.name, "-q")
		if code == 0 || !strings.Contains(stderr, "cairn format:") {
			t.Errorf("format -q of a formatted volume: exit %d, stderr %q; want the error", code, stderr)
		}
	}
}
