package metabench

import (
	"bytes"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"cairn/internal/testenv"
	"cairn/meta/engines"
)

// TestReportInstalledEngines runs 'cairn bench engines' on every engine
// this machine has — the servers started on loopback with throw-away data,
// as the tests start them — and writes the comparison to the file
// CAIRN_BENCH_REPORT names.
// It is for people, not CI, and skips without that variable:
//
//	CAIRN_BENCH_REPORT=/tmp/engines.md CAIRN_BENCHTIME=1s CAIRN_BENCH_COUNT=3 \
//	  go test -run ReportInstalled -timeout 2h ./bench/metabench
func TestReportInstalledEngines(t *testing.T) {
	out := os.Getenv("CAIRN_BENCH_REPORT")
	if out == "" {
		t.Skip("set CAIRN_BENCH_REPORT=FILE.md to measure every installed engine")
	}
	bt, err := ParseBenchtime(envOr("CAIRN_BENCHTIME", "1s"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	candidates := []struct {
		label, scheme, binary string
		start                 func() string
	}{
		{"Redis-Always", "redis", "redis-server", func() string {
			return testenv.Redis(t, "--appendfsync", "always").URL(1)
		}},
		{"Redis-Everysec", "redis", "redis-server", func() string {
			return testenv.Redis(t, "--appendfsync", "everysec").URL(1)
		}},
		{"SQLite", "sqlite3", "", func() string { return "sqlite3://" + filepath.Join(dir, "vol.db") }},
		{"PostgreSQL", "postgres", "initdb", func() string { return durablePostgres(t) }},
		{"MariaDB", "mysql", "mariadbd", func() string {
			// testenv flushes InnoDB's log once a second; measure
			// commits that are on disk when they return.
			s := testenv.MariaDB(t)
			s.SQL(t, "CREATE DATABASE cairn; SET GLOBAL innodb_flush_log_at_trx_commit = 1")
			return s.URL("cairn")
		}},
		{"etcd", "etcd", "etcd", func() string { return testenv.Etcd(t).URL("cairn") }},
		{"Badger", "badger", "", func() string { return "badger://" + filepath.Join(dir, "badger") }},
		{"mem", "mem", "", func() string { return "mem://" }},
	}
	bin := filepath.Join(dir, "cairn")
	if out, err := exec.Command("go", "build", "-o", bin, "cairn/cmd/cairn").CombinedOutput(); err != nil {
		t.Fatalf("build cairn: %v\n%s", err, out)
	}
	args := []string{"bench", "engines", "--report", out, "--benchtime", bt.String(), "--count", envOr("CAIRN_BENCH_COUNT", "1")}
	for _, c := range candidates {
		if !slices.Contains(engines.Schemes(), c.scheme) {
			t.Logf("%s: engine %q is not built into cairn yet; left out", c.label, c.scheme)
			continue
		}
		if c.binary != "" && !installed(c.binary) {
			t.Logf("%s: %s is not installed; left out", c.label, c.binary)
			continue
		}
		args = append(args, "--meta", c.label+"="+c.start())
	}
	// The command itself, as a person runs it: its progress goes to the
	// test's log as it comes.
	cmd := exec.Command(bin, args...)
	log := &lineLogger{t: t}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		t.Fatalf("cairn %s: %v", strings.Join(args, " "), err)
	}
	t.Logf("report written to %s", out)
}

// durablePostgres starts PostgreSQL as testenv does, then restarts it on
// the same cluster with fsync on: testenv turns fsync off to make tests
// fast, and a benchmark must measure commits that reach the disk.
func durablePostgres(t *testing.T) string {
	s := testenv.Postgres(t)
	s.Stop()
	bin, err := exec.LookPath("postgres")
	if m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/postgres"); len(m) > 0 {
		bin, err = m[len(m)-1], nil
	}
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-D", s.Dir, "-p", strconv.Itoa(s.Port), "-k", s.SocketDir,
		"-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200")
	if os.Getuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatal(err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	}
	logf, err := os.Create(filepath.Join(t.TempDir(), "postgres.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatalf("start postgres: %v", err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGINT)
		cmd.Wait()
		logf.Close()
	})
	// Up when a query answers, and the answer says fsync is on.
	url := s.URL("postgres")
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		out, err := exec.Command("psql", url, "-XAtc", "SHOW fsync").Output()
		if err == nil && strings.TrimSpace(string(out)) == "on" {
			return url
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(logf.Name())
			t.Fatalf("postgres with fsync on did not come up (%v, %q); its log:\n%s", err, out, log)
		}
	}
}

func installed(name string) bool {
	if _, err := exec.LookPath(name); err == nil {
		return true
	}
	for _, pattern := range []string{"/usr/sbin/", "/usr/lib/postgresql/*/bin/", "/usr/lib/etcd/"} {
		if m, _ := filepath.Glob(pattern + name); len(m) > 0 {
			return true
		}
	}
	return false
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// lineLogger shows a command's output in the test's log, a line at a time.
type lineLogger struct {
	t       *testing.T
	mu      sync.Mutex
	partial []byte
}

func (w *lineLogger) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.partial = append(w.partial, p...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			return len(p), nil
		}
		w.t.Log(string(w.partial[:i]))
		w.partial = w.partial[i+1:]
	}
}
