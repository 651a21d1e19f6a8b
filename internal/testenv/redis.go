package testenv

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// RedisServer is a redis-server the test started on 127.0.0.1 with a data
// directory of its own and the append-only file on (fsync every second,
// unless the extra arguments say otherwise). It is killed when the test
// ends.
type RedisServer struct {
	Port   int
	Dir    string
	Socket string // unix socket path
	bin    string
	args   []string
	cmd    *exec.Cmd
	t      testing.TB
}

// Redis starts a redis-server; extra are more command-line settings, e.g.
// "--requirepass", "secret". It skips (fails in CI) without redis-server.
func Redis(t testing.TB, extra ...string) *RedisServer {
	t.Helper()
	bin := Binary(t, []string{"redis-server"}, "/usr/bin", "/usr/local/bin")
	dir := t.TempDir()
	s := &RedisServer{Port: FreePort(t), Dir: dir, bin: bin, t: t}
	// Unix socket paths are limited to ~100 bytes; TempDir may be longer.
	sockDir, err := os.MkdirTemp("", "redis")
	if err != nil {
		t.Fatalf("make socket dir: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(sockDir) })
	s.Socket = filepath.Join(sockDir, "redis.sock")
	s.args = append([]string{
		"--port", fmt.Sprint(s.Port), "--bind", "127.0.0.1", "--dir", dir,
		"--unixsocket", s.Socket, "--unixsocketperm", "700",
		"--appendonly", "yes", "--appendfsync", "everysec", "--save", "",
		"--daemonize", "no", "--protected-mode", "no", "--logfile", filepath.Join(dir, "redis.log"),
	}, extra...)
	s.Start()
	t.Cleanup(s.Stop)
	return s
}

// Addr is host:port.
func (s *RedisServer) Addr() string { return fmt.Sprintf("127.0.0.1:%d", s.Port) }

// URL is the redis:// URL of database db.
func (s *RedisServer) URL(db int) string { return fmt.Sprintf("redis://%s/%d", s.Addr(), db) }

// Start (re)starts the server on the same port and data directory and
// waits until it answers.
func (s *RedisServer) Start() {
	s.t.Helper()
	s.cmd = exec.Command(s.bin, s.args...)
	// Should the test binary die (a panic, a timeout), the server goes too.
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := s.cmd.Start(); err != nil {
		s.t.Fatalf("start redis-server: %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if s.answers() {
			return
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(s.Dir, "redis.log"))
			s.Stop()
			s.t.Fatalf("redis-server did not come up on %s within 10s; its log:\n%s", s.Addr(), log)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// answers reports whether the server replies to PING (a NOAUTH error is a
// reply too) and has finished loading its data.
func (s *RedisServer) answers() bool {
	c, err := net.DialTimeout("tcp", s.Addr(), time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return false
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && !strings.HasPrefix(line, "-LOADING")
}

// Stop kills the server (SIGKILL: what it has fsync'd survives) and waits
// for it to exit. Stopping a stopped server does nothing.
func (s *RedisServer) Stop() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	s.cmd.Process.Kill()
	s.cmd.Wait()
	s.cmd = nil
}
