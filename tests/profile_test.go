package tests

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestProfileLive runs 'cairn profile' on a mount while files are created
// through it, for a fixed --duration: its last summary counts the
// creates and writes and names the files. Another user may not read the
// log.
func TestProfileLive(t *testing.T) {
	v := newVolume(t)
	if got := asNobody(t, "read", v.path(".accesslog")); got != "EACCES" {
		t.Errorf("another user opening .accesslog: %s, want EACCES (root and the mounting user only)", got)
	}
	cmd := exec.Command(cairnBin, "profile", v.dir, "--duration", "3s", "--interval", "1s", "--top", "100000")
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	// A new file each time: cairn profile sees only what happens after it
	// opened the log, which on a busy machine may be long after the first
	// writes. --top lists every target: each file's inode (write, flush,
	// release) outranks its name (lookup, create) in total time, so a short
	// list would hold only inodes.
	for i := 0; ; i++ {
		select {
		case err = <-done:
		default:
			if werr := os.WriteFile(v.path(fmt.Sprintf("profiled-%d", i)), []byte("data"), 0o644); werr != nil {
				t.Fatalf("write through the mount: %v", werr)
			}
			continue
		}
		break
	}
	if err != nil {
		t.Fatalf("cairn profile: %v\n%s", err, out.String())
	}
	summaries := strings.Split(out.String(), "cairn profile ")
	last := summaries[len(summaries)-1]
	for _, want := range []string{
		`(?m)^create\s+[1-9][0-9]*\s+0\s`,
		`(?m)^write\s+[1-9][0-9]*\s+0\s`,
		`(?m)^flush\s+[1-9]`,
		`(?m)^1/profiled-[0-9]+\s+[1-9]`,
	} {
		if !regexp.MustCompile(want).MatchString(last) {
			t.Errorf("the last summary of cairn profile lacks %s:\n%s", want, last)
		}
	}
	if len(summaries) < 3 {
		t.Errorf("cairn profile --interval 1s --duration 3s printed %d summaries, want one a second and a last one:\n%s", len(summaries)-1, out.String())
	}
}
