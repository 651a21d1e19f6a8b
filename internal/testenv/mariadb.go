package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// MariaDBServer is a MariaDB server the test started on 127.0.0.1 with a
// throw-away data directory (mariadb-install-db). User has every privilege
// and logs in with Password over TCP; root logs in over the unix socket
// Socket without one. It is stopped when the test ends. If it dies on its
// own, or the test fails, the end of its error log (where mariadbd writes
// its crash report with the statement it was running) goes to the test's
// log before the directory is removed.
type MariaDBServer struct {
	Port     int
	User     string
	Password string
	Dir      string
	Socket   string
	bin      string // mariadbd
	client   string // mariadb
	cred     *syscall.Credential
	cmd      *exec.Cmd
	exited   chan struct{} // closed once cmd has exited
	t        testing.TB
	logged   bool // the error log's end went to the test's log
}

// MariaDB starts a MariaDB server; it skips (fails in CI) when Debian's
// mariadb-server is not installed.
func MariaDB(t testing.TB) *MariaDBServer {
	t.Helper()
	bin := Binary(t, []string{"mariadbd"}, "/usr/sbin")
	install := Binary(t, []string{"mariadb-install-db"}, "/usr/bin")
	client := Binary(t, []string{"mariadb"}, "/usr/bin")
	s := &MariaDBServer{Port: FreePort(t), User: "cairn", Password: "cairn-test-pw", bin: bin, client: client, t: t}
	s.cred = unprivileged(t, "mysql")
	dir, err := os.MkdirTemp("", "cairn-mariadb-")
	if err != nil {
		t.Fatalf("make MariaDB data dir: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	giveTo(t, s.cred, dir)
	s.Dir = filepath.Join(dir, "data")
	s.Socket = filepath.Join(dir, "mysqld.sock")
	// Every mariadbd deletes all the #sql* files in its tmpdir when it
	// starts, the live internal temporary tables of other servers sharing
	// that directory included; MariaDB 10.11 then crashes in
	// ha_maria::drop_table where it was creating one (a cursor in
	// cairn_lock_conflict). Tests start servers all the time, so each gets
	// a tmpdir of its own.
	tmp := s.tmpDir()
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatalf("make MariaDB tmpdir: %v", err)
	}
	giveTo(t, s.cred, tmp)
	cmd := exec.Command(install, "--no-defaults", "--datadir="+s.Dir, "--tmpdir="+tmp, "--auth-root-authentication-method=normal",
		"--skip-test-db", "--skip-name-resolve")
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred, Pdeathsig: syscall.SIGKILL}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mariadb-install-db: %v\n%s", err, out)
	}
	s.Start()
	t.Cleanup(s.Stop)
	// Runs before Stop, so a failed test's log ends with what the server
	// said while it ran, not with its shutdown.
	t.Cleanup(func() {
		if s.died() {
			s.logErrors("died while the test ran")
		} else if t.Failed() {
			s.logErrors("the test failed")
		}
	})
	s.SQL(t, fmt.Sprintf("CREATE USER '%s'@'%%' IDENTIFIED BY '%s'; GRANT ALL ON *.* TO '%s'@'%%'",
		s.User, s.Password, s.User))
	return s
}

// URL is the mysql:// URL of database db over TCP, with the password.
func (s *MariaDBServer) URL(db string) string {
	return fmt.Sprintf("mysql://%s:%s@(127.0.0.1:%d)/%s", s.User, s.Password, s.Port, db)
}

// Start (re)starts the server on the same port and data directory and
// waits until it answers.
func (s *MariaDBServer) Start() {
	s.t.Helper()
	logPath := s.logPath()
	s.cmd = exec.Command(s.bin, "--no-defaults", "--datadir="+s.Dir, "--tmpdir="+s.tmpDir(), "--port="+strconv.Itoa(s.Port),
		"--bind-address=127.0.0.1", "--socket="+s.Socket, "--pid-file="+filepath.Join(filepath.Dir(s.Dir), "mariadb.pid"),
		"--log-error="+logPath, "--skip-name-resolve", "--skip-log-bin", "--max-connections=300",
		"--innodb-buffer-pool-size=64M", "--innodb-flush-log-at-trx-commit=2")
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred, Pdeathsig: syscall.SIGKILL}
	if err := s.cmd.Start(); err != nil {
		s.t.Fatalf("start mariadbd: %v", err)
	}
	exited := make(chan struct{})
	s.exited = exited
	go func(cmd *exec.Cmd) { cmd.Wait(); close(exited) }(s.cmd)
	deadline := time.Now().Add(30 * time.Second)
	for {
		ping := exec.Command(s.client, "--no-defaults", "-S", s.Socket, "-u", "root", "-e", "SELECT 1")
		ping.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
		if ping.Run() == nil {
			return
		}
		if s.died() {
			log, _ := os.ReadFile(logPath)
			s.cmd = nil
			s.t.Fatalf("mariadbd on port %d exited while starting; its log:\n%s", s.Port, log)
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(logPath)
			s.Stop()
			s.t.Fatalf("mariadbd did not come up on port %d within 30s; its log:\n%s", s.Port, log)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Stop shuts the server down cleanly (SIGTERM) and waits for it.
// Stopping a stopped server does nothing; stopping one that has died logs
// the end of its error log.
func (s *MariaDBServer) Stop() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	if s.died() {
		s.logErrors("died before it was stopped")
		s.cmd = nil
		return
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(30 * time.Second):
		s.cmd.Process.Kill()
		<-s.exited
	}
	s.cmd = nil
}

// Kill crashes the server (SIGKILL) and waits for it to be gone; Start
// brings it back through InnoDB's crash recovery. Killing a stopped server
// does nothing.
func (s *MariaDBServer) Kill() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	if s.died() {
		s.logErrors("died before it was killed")
	}
	s.cmd.Process.Kill()
	<-s.exited
	s.cmd = nil
}

// died reports whether the running server's process has exited without
// Stop or Kill.
func (s *MariaDBServer) died() bool {
	if s.cmd == nil {
		return false
	}
	select {
	case <-s.exited:
		return true
	default:
		return false
	}
}

func (s *MariaDBServer) tmpDir() string { return filepath.Join(filepath.Dir(s.Dir), "tmp") }

func (s *MariaDBServer) logPath() string { return filepath.Join(filepath.Dir(s.Dir), "mariadb.log") }

// errorLogTail is how many lines of the error log logErrors shows when it
// holds no crash report: enough for the errors that led to a failure.
const errorLogTail = 60

// logErrors writes the end of the error log to the test's log, once, saying
// why: from the last crash report ("got signal", then the stack and the
// statement) on if there is one, else the last errorLogTail lines.
func (s *MariaDBServer) logErrors(why string) {
	if s.logged {
		return
	}
	s.logged = true
	log, err := os.ReadFile(s.logPath())
	if err != nil {
		s.t.Logf("mariadbd on port %d %s; its error log: %v", s.Port, why, err)
		return
	}
	lines := strings.Split(strings.TrimRight(string(log), "\n"), "\n")
	from := max(0, len(lines)-errorLogTail)
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.Contains(lines[i], "got signal") {
			from = i
			break
		}
	}
	s.t.Logf("mariadbd on port %d %s; the end of its error log %s:\n%s",
		s.Port, why, s.logPath(), strings.Join(lines[from:], "\n"))
}

// SQL runs statements as root over the unix socket and returns the output.
func (s *MariaDBServer) SQL(t testing.TB, statements string) string {
	t.Helper()
	cmd := exec.Command(s.client, "--no-defaults", "-S", s.Socket, "-u", "root", "-N", "-B", "-e", statements)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mariadb %q: %v\n%s", statements, err, out)
	}
	return string(out)
}
