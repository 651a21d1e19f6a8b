package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// mountProcess is the pid serving a cairn mount, from its .stats file, or
// 0 when it cannot be told (not a cairn mount, .stats unreadable).
func mountProcess(mountpoint string) int {
	data, err := os.ReadFile(filepath.Join(mountpoint, ".stats"))
	if err != nil {
		return 0
	}
	var s struct {
		PID int `json:"pid"`
	}
	if json.Unmarshal(data, &s) != nil || s.PID == os.Getpid() {
		return 0
	}
	return s.PID
}

// waitForExit waits until process pid is gone: a mount process, once the
// kernel has let go of its mount point, still uploads what it buffered,
// closes its session and releases its database (Badger's directory lock),
// and only then is the volume free to mount again. It says so on stderr
// when that takes more than a second, and gives up after limit.
func waitForExit(pid int, mountpoint string, limit time.Duration) error {
	if pid <= 0 {
		return nil
	}
	start := time.Now()
	told := false
	for {
		if !running(pid) {
			return nil
		}
		waited := time.Since(start)
		if waited > limit {
			return fmt.Errorf("%s is unmounted, but its process %d is still finishing after %s (uploads pending?): it keeps going in the background", mountpoint, pid, limit)
		}
		if waited > time.Second && !told {
			inform(os.Stderr, "cairn umount: waiting for the mount process %d to finish its uploads", pid)
			told = true
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// running reports whether pid is a live process: not gone, and not a
// zombie waiting for its parent (a foreground mount started by another
// program has exited once it is one).
func running(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the command name, which is in parentheses and
	// may itself hold spaces or parentheses.
	rest := string(data)
	if i := strings.LastIndexByte(rest, ')'); i >= 0 {
		rest = rest[i+1:]
	}
	fields := strings.Fields(rest)
	return len(fields) > 0 && fields[0] != "Z" && fields[0] != "X"
}
