package tests

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"cairn/internal/testenv"
)

// TestStatsInTerminal runs 'cairn stats' in a tmux terminal while files
// are created through the mount, and reads its screen: the view is
// redrawn in place and shows the creates, per second.
func TestStatsInTerminal(t *testing.T) {
	needMount(t)
	tmuxBin := testenv.Binary(t, []string{"tmux"})
	v := newVolume(t)
	socket := fmt.Sprintf("cairn-stats-%d", os.Getpid())
	tmux := func(args ...string) (string, error) {
		out, err := exec.Command(tmuxBin, append([]string{"-L", socket}, args...)...).CombinedOutput()
		return string(out), err
	}
	if out, err := tmux("new-session", "-d", "-x", "100", "-y", "80", cairnBin+" stats "+v.dir); err != nil {
		t.Fatalf("start cairn stats in tmux: %v: %s", err, out)
	}
	t.Cleanup(func() { tmux("kill-server") })

	var stop atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; !stop.Load(); i++ {
			if err := os.WriteFile(v.path(fmt.Sprintf("f%d", i)), []byte("x"), 0o644); err != nil {
				t.Errorf("create f%d: %v", i, err)
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	defer func() { stop.Store(true); <-done }()

	creates := regexp.MustCompile(`(?m)^\s+create\s+([0-9]+) ops/s\s+[0-9]+ µs`)
	clock := regexp.MustCompile(`cairn stats \S+\s+(\d\d:\d\d:\d\d)`)
	var screen string
	times := map[string]bool{} // the updates seen, by the time they show
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, err := tmux("capture-pane", "-p")
		if err != nil {
			t.Fatalf("read the tmux screen: %v: %s", err, out)
		}
		screen = out
		if m := clock.FindStringSubmatch(screen); m != nil {
			times[m[1]] = true
		}
		// Two updates at least, to see the second drawn over the first.
		if m := creates.FindStringSubmatch(screen); m != nil && m[1] != "0" && len(times) >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("cairn stats never showed creates per second; its screen:\n%s", screen)
		}
		time.Sleep(200 * time.Millisecond)
	}
	for _, want := range []string{"cairn stats " + v.dir, "FUSE requests", "metadata engine calls", "mknod", "throughput", "cache", "objects     put", "volume"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the screen of cairn stats lacks %q:\n%s", want, screen)
		}
	}
	if n := strings.Count(screen, "FUSE requests"); n != 1 {
		t.Errorf("the screen shows %d views, want one redrawn in place:\n%s", n, screen)
	}
}

// TestStatsNotAMount: 'cairn stats' of a directory that is no mount is
// one line.
func TestStatsNotAMount(t *testing.T) {
	needBinary(t)
	wantUserError(t, runCairn(t, "stats", tempDir(t)), "not the root of a cairn mount")
	wantUserError(t, runCairn(t, "stats", tempDir(t), "--interval", "1ms"), "too short")
}
