package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// logRecorder is the test's own testing.TB that also keeps what is logged
// through it, to check what the server helper reports.
type logRecorder struct {
	testing.TB
	mu   sync.Mutex
	logs []string
}

func (r *logRecorder) Logf(format string, args ...any) {
	r.mu.Lock()
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
	r.mu.Unlock()
	r.TB.Logf(format, args...)
}

func (r *logRecorder) logged() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.logs, "\n")
}

// TestMariaDBCrashReportLogged crashes a real mariadbd the way a bug in it
// would (SIGSEGV) and checks that stopping it afterwards puts its crash
// report from the error log into the test's log, once, while a server that
// is stopped, killed or started again as the tests do reports nothing.
func TestMariaDBCrashReportLogged(t *testing.T) {
	r := &logRecorder{TB: t}
	s := MariaDB(r)
	s.Kill()
	s.Start()
	s.Stop()
	s.Start()
	if got := r.logged(); got != "" {
		t.Fatalf("a server stopped and killed on purpose logged:\n%s", got)
	}
	s.cmd.Process.Signal(syscall.SIGSEGV)
	<-s.exited
	s.Stop()
	s.Stop()
	got := r.logged()
	if !strings.Contains(got, "died before it was stopped") || !strings.Contains(got, "got signal 11") {
		t.Fatalf("after a crash, the test's log has no crash report:\n%s", got)
	}
	if n := strings.Count(got, "got signal 11"); n != 1 {
		t.Errorf("the crash report was logged %d times, want once", n)
	}
}

// TestMariaDBTmpdirOwn plants a file named as a live internal temporary
// table of one server (#sql...) in its tmpdir and starts a second server:
// mariadbd deletes every such file in its tmpdir when it starts, so had
// the two shared a tmpdir, the first server's table would be gone (the
// crash in ha_maria::drop_table that followed in MariaDB 10.11).
func TestMariaDBTmpdirOwn(t *testing.T) {
	first := MariaDB(t)
	planted := filepath.Join(strings.TrimSpace(first.SQL(t, "SELECT @@tmpdir")), "#sql-temptable-cairn-planted.MAI")
	if err := os.WriteFile(planted, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(planted) })
	giveTo(t, first.cred, planted) // in a sticky /tmp only its owner may delete it, as the servers' own
	MariaDB(t)
	if _, err := os.Stat(planted); err != nil {
		t.Fatalf("starting a second server removed the first one's temporary table: %v", err)
	}
}
