package testenv

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// FUSE skips the test (fails it in CI) unless this machine can mount FUSE
// file systems: /dev/fuse and fusermount3 must be there.
func FUSE(t testing.TB) {
	t.Helper()
	if _, err := os.Stat("/dev/fuse"); err != nil {
		Missing(t, "no /dev/fuse on this machine: FUSE mounts are impossible (%v)", err)
	}
	Binary(t, []string{"fusermount3"})
}

// Mount is a FUSE file system served by a child process for the length of
// a test.
type Mount struct {
	Dir string // the mount point, absolute

	cmd    *exec.Cmd
	output *syncBuffer
	done   chan struct{} // closed when cmd has exited
	err    error         // cmd's exit status, valid after done
}

// StartMount runs cmd, a program that serves a FUSE file system at dir in
// the foreground, waits until dir is mounted, and unmounts it when the test
// ends (so no stale mount is ever left behind). The program's output is
// kept and shown when the mount fails.
func StartMount(t testing.TB, cmd *exec.Cmd, dir string) *Mount {
	t.Helper()
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatalf("mount point %s: %v", dir, err)
	}
	m := &Mount{Dir: abs, cmd: cmd, output: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stdout = m.output
	cmd.Stderr = m.output
	// Should the test binary die (a panic, a timeout), the mount goes too.
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGTERM
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %v: %v", cmd.Args, err)
	}
	go func() {
		m.err = cmd.Wait()
		close(m.done)
	}()
	t.Cleanup(func() { m.cleanup(t) })
	deadline := time.Now().Add(60 * time.Second)
	for !IsMounted(abs) {
		select {
		case <-m.done:
			t.Fatalf("%v exited before %s was mounted (%v); its output:\n%s", cmd.Args, abs, m.err, m.output.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not mounted 60s after starting %v; its output:\n%s", abs, cmd.Args, m.output.String())
		}
	}
	return m
}

// Output is what the serving process printed so far.
func (m *Mount) Output() string { return m.output.String() }

// WaitOutput waits until the serving process has printed want, and
// reports whether it did within timeout (false too when it exited first).
func (m *Mount) WaitOutput(want string, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for !strings.Contains(m.output.String(), want) {
		if m.Exited() || time.Now().After(deadline) {
			return strings.Contains(m.output.String(), want)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

// Exited reports whether the serving process has ended.
func (m *Mount) Exited() bool {
	select {
	case <-m.done:
		return true
	default:
		return false
	}
}

// Unmount stops the file system as a service manager would (SIGTERM to
// the serving process, which must flush, unmount and exit 0) and returns
// the process's exit error, or an error when it did not stop in time.
func (m *Mount) Unmount() error { return m.Stop(syscall.SIGTERM) }

// Stop sends sig (SIGTERM, or SIGINT for a user's Ctrl-C) to the serving
// process and waits for it to unmount and exit, as Unmount does.
func (m *Mount) Stop(sig syscall.Signal) error {
	select {
	case <-m.done:
		if IsMounted(m.Dir) {
			return fmt.Errorf("the process serving %s exited (%v) but left it mounted", m.Dir, m.err)
		}
		return m.err
	default:
	}
	if err := m.cmd.Process.Signal(sig); err != nil {
		return fmt.Errorf("signal the process serving %s: %w", m.Dir, err)
	}
	if !m.wait(60 * time.Second) {
		return fmt.Errorf("the process serving %s did not exit 60s after %v", m.Dir, sig)
	}
	if IsMounted(m.Dir) {
		return fmt.Errorf("the process serving %s exited (%v) but left it mounted", m.Dir, m.err)
	}
	return m.err
}

// Kill ends the serving process with SIGKILL, as a crash would: nothing is
// flushed and the kernel keeps a dead mount until ForceUnmount.
func (m *Mount) Kill() error {
	if m.Exited() {
		return fmt.Errorf("the process serving %s had already exited (%v)", m.Dir, m.err)
	}
	if err := m.cmd.Process.Kill(); err != nil {
		return err
	}
	if !m.wait(10 * time.Second) {
		abortMount(m.Dir)
		if !m.wait(10 * time.Second) {
			return fmt.Errorf("the process serving %s did not die of SIGKILL, even after its FUSE connection was aborted", m.Dir)
		}
		return fmt.Errorf("the process serving %s hung in exit after SIGKILL until its FUSE connection was aborted", m.Dir)
	}
	return nil
}

// kernelStacks describes where each thread of process pid waits in the
// kernel, to tell a deadlock on the process's own mount from a busy loop.
func kernelStacks(pid int) string {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*", pid))
	var b strings.Builder
	for _, task := range tasks {
		stack, _ := os.ReadFile(filepath.Join(task, "stack"))
		lines := strings.Fields(string(stack))
		var frames []string
		for _, l := range lines {
			if strings.Contains(l, "+0x") {
				frames = append(frames, l[:strings.Index(l, "+0x")])
			}
		}
		if len(frames) > 6 {
			frames = frames[:6]
		}
		fmt.Fprintf(&b, "  %s: %s\n", filepath.Base(task), strings.Join(frames, " < "))
	}
	return b.String()
}

// wait waits up to d for the serving process to end.
func (m *Mount) wait(d time.Duration) bool {
	select {
	case <-m.done:
		return true
	case <-time.After(d):
		return false
	}
}

// abortMount aborts the FUSE connection of dir (umount -f), failing every
// request in flight, so that a server stuck waiting on its own mount can
// exit.
func abortMount(dir string) {
	if IsMounted(dir) {
		syscall.Unmount(dir, syscall.MNT_FORCE)
	}
}

// cleanup makes sure nothing is left: the process is gone and dir is not
// mounted, whatever state the test left them in.
func (m *Mount) cleanup(t testing.TB) {
	if !m.Exited() {
		m.cmd.Process.Signal(syscall.SIGTERM)
		if !m.wait(30 * time.Second) {
			t.Errorf("the process serving %s ignored SIGTERM for 30s; killing it. Its threads wait in:\n%s\nIts output:\n%s", m.Dir, kernelStacks(m.cmd.Process.Pid), m.Output())
			m.cmd.Process.Kill()
			if !m.wait(10 * time.Second) {
				t.Errorf("the process serving %s hung after SIGKILL; aborting its FUSE connection", m.Dir)
				abortMount(m.Dir)
				if !m.wait(30 * time.Second) {
					t.Errorf("the process serving %s is still alive; giving up on it", m.Dir)
				}
			}
		}
	}
	ForceUnmount(t, m.Dir)
}

// ForceUnmount detaches dir if it is still a mount point: a normal
// unmount first, then a lazy one, so that a test never leaves a stale
// mount behind.
func ForceUnmount(t testing.TB, dir string) {
	if !IsMounted(dir) {
		return
	}
	if out, err := exec.Command("fusermount3", "-u", dir).CombinedOutput(); err != nil {
		t.Logf("fusermount3 -u %s: %v %s", dir, err, bytes.TrimSpace(out))
	}
	if !IsMounted(dir) {
		return
	}
	if out, err := exec.Command("fusermount3", "-uz", dir).CombinedOutput(); err != nil {
		t.Errorf("fusermount3 -uz %s: %v %s", dir, err, bytes.TrimSpace(out))
	}
}

// IsMounted reports whether dir is the mount point of a FUSE file system,
// from /proc/self/mountinfo.
func IsMounted(dir string) bool {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return false
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	s.Buffer(make([]byte, 64<<10), 1<<20)
	for s.Scan() {
		// id parent major:minor root mountpoint options... - fstype source superopts
		fields := strings.Fields(s.Text())
		if len(fields) < 5 || unescapeMountinfo(fields[4]) != dir {
			continue
		}
		for i, f := range fields {
			if f == "-" && i+1 < len(fields) && strings.HasPrefix(fields[i+1], "fuse") {
				return true
			}
		}
	}
	return false
}

// unescapeMountinfo undoes the octal escapes (\040 for a space) the kernel
// writes into /proc/self/mountinfo.
func unescapeMountinfo(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			var v int
			if _, err := fmt.Sscanf(s[i+1:i+4], "%3o", &v); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// syncBuffer is a bytes.Buffer safe for the writer goroutines of exec.Cmd
// and a reader at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
