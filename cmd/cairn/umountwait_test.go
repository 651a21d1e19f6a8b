package main

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// TestRunning: a live process runs; one that exited and waits for its
// parent (a zombie) and one that is gone do not.
func TestRunning(t *testing.T) {
	if !running(os.Getpid()) {
		t.Fatal("this test's own process does not count as running")
	}
	cmd := exec.Command("sleep", "0.05")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	if !running(pid) {
		t.Errorf("a sleeping child %d does not count as running", pid)
	}
	// Not waited for: once it exits it stays a zombie of this process.
	deadline := time.Now().Add(10 * time.Second)
	for running(pid) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if running(pid) {
		t.Errorf("child %d still counts as running after it exited (zombie)", pid)
	}
	if err := waitForExit(pid, "/mnt", time.Second); err != nil {
		t.Errorf("waitForExit of an exited child: %v", err)
	}
	cmd.Wait()
	if running(pid) {
		t.Errorf("child %d counts as running after it was reaped", pid)
	}
}
