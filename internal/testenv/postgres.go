package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// PostgresServer is a PostgreSQL server the test started on 127.0.0.1
// with a throw-away cluster (initdb) of its own. Its superuser is User,
// who logs in over TCP with Password (scram-sha-256) and over the unix
// socket in SocketDir without one. fsync is off: the tests restart the
// server, they do not pull its power. It is stopped when the test ends.
type PostgresServer struct {
	Port      int
	User      string
	Password  string
	Dir       string // data directory
	SocketDir string
	bin       string // directory of initdb, postgres, psql
	cred      *syscall.Credential
	cmd       *exec.Cmd
	t         testing.TB
}

// Postgres starts a PostgreSQL server; it skips (fails in CI) when the
// server binaries (Debian's postgresql package) are missing.
func Postgres(t testing.TB) *PostgresServer {
	t.Helper()
	s := &PostgresServer{Port: FreePort(t), User: "cairn", Password: "cairn-test-pw", bin: postgresBin(t), t: t}
	s.cred = unprivileged(t, "postgres")
	dir, err := os.MkdirTemp("", "cairn-pg-")
	if err != nil {
		t.Fatalf("make PostgreSQL data dir: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	s.SocketDir = dir
	s.Dir = filepath.Join(dir, "data")
	pwfile := filepath.Join(dir, "pw")
	if err := os.WriteFile(pwfile, []byte(s.Password+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	giveTo(t, s.cred, dir, pwfile)
	out, err := s.command("initdb", "-D", s.Dir, "-U", s.User, "--pwfile="+pwfile, "-E", "UTF8",
		"--auth-host=scram-sha-256", "--auth-local=trust", "--no-sync").CombinedOutput()
	if err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	s.Start()
	t.Cleanup(s.Stop)
	return s
}

// postgresBin finds the directory holding initdb, postgres and psql: the
// newest Debian install, else wherever PATH has them.
func postgresBin(t testing.TB) string {
	t.Helper()
	if m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/postgres"); len(m) > 0 {
		sort.Strings(m)
		return filepath.Dir(m[len(m)-1])
	}
	return filepath.Dir(Binary(t, []string{"postgres"}))
}

// URL is the postgres:// URL of database db over TCP, with the password.
func (s *PostgresServer) URL(db string) string {
	return fmt.Sprintf("postgres://%s:%s@127.0.0.1:%d/%s?sslmode=disable", s.User, s.Password, s.Port, db)
}

// command prepares one of the server's programs, run as the unprivileged
// user when the test runs as root.
func (s *PostgresServer) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(s.bin, name), args...)
	cmd.Dir = s.SocketDir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred, Pdeathsig: syscall.SIGKILL}
	return cmd
}

// Start (re)starts the server on the same port and data directory and
// waits until it accepts connections.
func (s *PostgresServer) Start() {
	s.t.Helper()
	logPath := filepath.Join(s.SocketDir, "postgres.log")
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		s.t.Fatal(err)
	}
	defer logf.Close()
	s.cmd = s.command("postgres", "-D", s.Dir, "-p", strconv.Itoa(s.Port), "-k", s.SocketDir,
		"-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "full_page_writes=off",
		"-c", "max_connections=200", "-c", "shared_buffers=32MB")
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	if err := s.cmd.Start(); err != nil {
		s.t.Fatalf("start postgres: %v", err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, err := s.command("pg_isready", "-h", "127.0.0.1", "-p", strconv.Itoa(s.Port)).CombinedOutput()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(logPath)
			s.Stop()
			s.t.Fatalf("postgres did not come up on port %d within 30s (%v: %s); its log:\n%s", s.Port, err, out, log)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Stop shuts the server down (fast shutdown: clients are disconnected,
// committed work is kept) and waits for it. Stopping a stopped server does
// nothing.
func (s *PostgresServer) Stop() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	s.cmd.Process.Signal(syscall.SIGINT)
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		s.cmd.Process.Kill()
		<-done
	}
	s.cmd = nil
}

// SQL runs statements with psql over the unix socket as the superuser,
// in database db, and returns psql's output.
func (s *PostgresServer) SQL(t testing.TB, db, statements string) string {
	t.Helper()
	out, err := s.command("psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", s.SocketDir,
		"-p", strconv.Itoa(s.Port), "-U", s.User, "-d", db, "-c", statements).CombinedOutput()
	if err != nil {
		t.Fatalf("psql %q: %v\n%s", statements, err, out)
	}
	return string(out)
}

// unprivileged returns the credentials of the named system user to run a
// server as when the test runs as root (database servers refuse to run as
// root), or nil when it does not.
func unprivileged(t testing.TB, name string) *syscall.Credential {
	t.Helper()
	if os.Getuid() != 0 {
		return nil
	}
	u, err := user.Lookup(name)
	if err != nil {
		Missing(t, "running as root and there is no %q user to run the server as (install the server package): %v", name, err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
}

// giveTo hands files to the user a server runs as.
func giveTo(t testing.TB, cred *syscall.Credential, paths ...string) {
	t.Helper()
	if cred == nil {
		return
	}
	for _, p := range paths {
		if err := os.Chown(p, int(cred.Uid), int(cred.Gid)); err != nil {
			t.Fatalf("chown %s: %v", p, err)
		}
	}
}
