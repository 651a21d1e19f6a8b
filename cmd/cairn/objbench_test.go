package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

func TestObjbenchFileStore(t *testing.T) {
	dir := t.TempDir()
	var stderr bytes.Buffer
	if code := run([]string{"objbench", "--storage", "file", "--bucket", dir, "--objects", "4", "--block-size", "64K", "--small-object-size", "4K"}, &stderr); code != 0 {
		t.Fatalf("objbench exit %d: %s", code, stderr.String())
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("objbench left %d entries in the bucket", len(left))
	}
}

func TestObjbenchBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"objbench", "--storage", "file"}, "no --bucket"},
		{[]string{"objbench", "--storage", "tape", "--bucket", "x"}, "unknown storage"},
		{[]string{"objbench", "--storage", "s3", "--bucket", "ftp://h/b"}, "not an S3 URL"},
		{[]string{"objbench", "--storage", "mem", "--objects", "0"}, "must be positive"},
	} {
		var stderr bytes.Buffer
		code := run(c.args, &stderr)
		msg := stderr.String()
		if code != 1 || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, c.want) {
			t.Errorf("%v: exit %d, %q; want exit 1 and one line with %q", c.args, code, msg, c.want)
		}
	}
}
