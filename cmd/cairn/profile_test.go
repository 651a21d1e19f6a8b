package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"cairn/accesslog"
)

// TestProfileOfASavedLog sums up a saved log: each operation's count,
// errors and time, and the inodes and names that took the most time.
func TestProfileOfASavedLog(t *testing.T) {
	at := time.Date(2026, 11, 24, 6, 0, 0, 0, time.UTC)
	records := []accesslog.Record{
		{Op: "lookup", Args: `1,"a.txt"`, Result: "ENOENT", Duration: 100 * time.Microsecond},
		{Op: "create", Args: `1,"a.txt",mode=0644,flags=0x8241`, Result: "OK ino=5 fh=1", Duration: 900 * time.Microsecond},
		{Op: "write", Args: "5,fh=1,off=0,size=4096", Result: "OK bytes=4096", Duration: 300 * time.Microsecond},
		{Op: "write", Args: "5,fh=1,off=4096,size=4096", Result: "OK bytes=4096", Duration: 500 * time.Microsecond},
		{Op: "lookup", Args: `1,"b"`, Result: "OK ino=6", Duration: 200 * time.Microsecond},
		{Op: "write", Args: "5,fh=1,off=8192,size=4096", Result: "EIO", Duration: 1200 * time.Microsecond},
	}
	var log []byte
	for i, r := range records {
		r.Time = at.Add(time.Duration(i) * time.Second)
		log = r.Append(log)
		if i == 2 {
			log = append(log, "# 4 lines dropped: this reader fell behind\n"...)
		}
	}
	path := filepath.Join(t.TempDir(), "access.log")
	if err := os.WriteFile(path, log, 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := profileFile(path, 2, &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		`(?m)^cairn profile \S+access.log  5s, 6 requests, 4 dropped`,
		`(?m)^write\s+3\s+1\s+2\.000\s+666\.7$`,
		`(?m)^create\s+1\s+0\s+0\.900\s+900\.0$`,
		`(?m)^lookup\s+2\s+1\s+0\.300\s+150\.0$`,
		`(?m)^5\s+3\s+1\s+2\.000\s+666\.7$`,
		`(?m)^1/a\.txt\s+2\s+1\s+1\.000\s+500\.0$`,
	} {
		if !regexp.MustCompile(want).MatchString(got) {
			t.Errorf("the profile lacks %s:\n%s", want, got)
		}
	}
	if strings.Contains(got, "1/b") {
		t.Errorf("--top 2 lists a third target:\n%s", got)
	}
	if ops := regexp.MustCompile(`(?m)^(write|create|lookup) `).FindAllString(got, -1); strings.Join(ops, "") != "write create lookup " {
		t.Errorf("operations are not ordered by time: %q", ops)
	}
}

// TestProfileBadInput: each mistake is one line.
func TestProfileBadInput(t *testing.T) {
	dir := t.TempDir()
	notALog := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notALog, []byte("hello\nworld\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{filepath.Join(dir, "missing.log")}, "does not exist"},
		{[]string{notALog}, "holds no access log line"},
		{[]string{dir}, "is not the root of a cairn mount"},
		{[]string{notALog, "--duration", "5s"}, "are for a live profile of a mount"},
		{[]string{dir, "--top", "0"}, "--top 0"},
		{[]string{dir, "--interval", "1ms"}, "too short"},
	}
	for _, c := range cases {
		var stderr strings.Builder
		code := run(append([]string{"profile"}, c.args...), &stderr)
		if code != 1 || !strings.Contains(stderr.String(), c.want) || strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("cairn profile %v: exit %d, %q; want one line saying %q", c.args, code, stderr.String(), c.want)
		}
	}
}
