package fuse

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"cairn/accesslog"
)

// TestAccessLog reads .accesslog while files are touched through the
// mount: every request shows with its arguments and result, the file's
// own requests do not, and the file can be neither listed nor replaced.
func TestAccessLog(t *testing.T) {
	dir := mount(t)
	// The reader is another process, as a user's would be: a reader in
	// this one, which also serves the mount, could not be stopped.
	cat := exec.Command("cat", filepath.Join(dir, AccessLogName))
	out, err := cat.StdoutPipe()
	must(t, err)
	must(t, cat.Start())
	t.Cleanup(func() { cat.Process.Kill(); cat.Wait() })
	lines := make(chan string, 1024)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	// The log shows requests from the moment it is open.
	for open := false; !open; {
		os.Stat(filepath.Join(dir, "before"))
		select {
		case line := <-lines:
			open = strings.Contains(line, `"before"`)
		case <-time.After(20 * time.Millisecond):
		}
	}

	must(t, os.WriteFile(filepath.Join(dir, "touched.txt"), []byte("hello"), 0o644))
	must(t, os.Mkdir(filepath.Join(dir, "sub dir"), 0o755))
	if _, err := os.Stat(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("stat of a missing file: %v", err)
	}
	must(t, os.Remove(filepath.Join(dir, "touched.txt")))

	want := []struct{ op, target, result string }{
		{"create", "1/touched.txt", "OK"},
		{"write", "", "OK"},
		{"mkdir", "1/sub dir", "OK"},
		{"lookup", "1/missing", "ENOENT"},
		{"unlink", "1/touched.txt", "OK"},
	}
	found := make([]bool, len(want))
	var seen []string
	deadline := time.After(30 * time.Second) // a guard against a hang, not a timing check
	for left := len(want); left > 0; {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("the access log ended; it said:\n%s", strings.Join(seen, "\n"))
			}
			seen = append(seen, line)
			r, err := accesslog.Parse(line)
			if err != nil {
				t.Fatalf("a line of the access log does not parse: %v", err)
			}
			if strings.HasPrefix(r.Args, strconv.FormatUint(accessLogIno, 10)) {
				t.Errorf("the log logs a request on itself: %s", line)
			}
			if (r.Pid == 0 && r.Op != "release") || r.Duration < 0 {
				t.Errorf("a line without the caller's pid or with a negative time: %s", line)
			}
			for i, w := range want {
				if !found[i] && r.Op == w.op && (w.target == "" || r.Target() == w.target) && strings.HasPrefix(r.Result, w.result) {
					found[i] = true
					left--
				}
			}
		case <-deadline:
			t.Fatalf("requests missing from the access log (%v of %v found); it said:\n%s", found, want, strings.Join(seen, "\n"))
		}
	}

	es, err := os.ReadDir(dir)
	must(t, err)
	for _, e := range es {
		if e.Name() == AccessLogName {
			t.Errorf("%s is listed by readdir", AccessLogName)
		}
	}
	path := filepath.Join(dir, AccessLogName)
	if err := os.WriteFile(path, []byte("x"), 0o644); !errors.Is(err, syscall.EACCES) {
		t.Errorf("writing the access log: %v, want EACCES", err)
	}
	if err := os.Remove(path); !errors.Is(err, syscall.EPERM) {
		t.Errorf("removing the access log: %v, want EPERM", err)
	}
	if err := os.Mkdir(path, 0o755); !errors.Is(err, syscall.EEXIST) {
		t.Errorf("mkdir over the access log: %v, want EEXIST", err)
	}
	must(t, os.WriteFile(filepath.Join(dir, "other"), nil, 0o644))
	if err := os.Rename(filepath.Join(dir, "other"), path); !errors.Is(err, syscall.EPERM) {
		t.Errorf("renaming onto the access log: %v, want EPERM", err)
	}
	st, err := os.Stat(path)
	must(t, err)
	if st.Mode().Perm() != 0o400 || !st.Mode().IsRegular() {
		t.Errorf("the access log's mode is %v, want -r--------", st.Mode())
	}
}
