package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestUpdateFstab(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fstab")
	before := "# /etc/fstab\nUUID=abc / ext4 defaults 0 1\n\n/dev/sdb1 /data xfs defaults 0 2\n"
	if err := os.WriteFile(path, []byte(before), 0o640); err != nil {
		t.Fatal(err)
	}
	first := fstabLine("redis://h:6379/1", "/mnt/my vol", []string{"_netdev", "cache-size=1024"})
	if first != `redis://h:6379/1 /mnt/my\040vol cairn _netdev,cache-size=1024 0 0` {
		t.Fatalf("fstab line %q", first)
	}
	replaced, err := updateFstab(path, "/mnt/my vol", first)
	if err != nil || replaced {
		t.Fatalf("first update: replaced %v, %v", replaced, err)
	}
	second := fstabLine("redis://h:6379/2", "/mnt/my vol", []string{"_netdev", "read-only"})
	for i := 0; i < 2; i++ { // twice: the same file
		replaced, err = updateFstab(path, "/mnt/my vol", second)
		if err != nil || !replaced {
			t.Fatalf("update %d: replaced %v, %v", i+2, replaced, err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if want := before + second + "\n"; string(data) != want {
			t.Fatalf("after update %d:\n%s\nwant:\n%s", i+2, data, want)
		}
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o640 {
		t.Errorf("the fstab's mode is %v (%v), want it kept at 0640", st.Mode(), err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("files left beside the fstab: %v", entries)
	}
}

func TestFstabOptions(t *testing.T) {
	var f mountFlags
	fs := newMountFlagSet(&f)
	args := []string{"-d", "--update-fstab", "--fstab", "/tmp/x", "--cache-size", "2G", "--read-only", "-o", "allow_other,writeback_cache", "--attr-cache", "3s", "sqlite3:///v.db", "/mnt"}
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	got, err := fstabOptions(fs)
	if err != nil {
		t.Fatal(err)
	}
	want := "_netdev,attr-cache=3s,cache-size=2147483648,allow_other,writeback_cache,read-only"
	if strings.Join(got, ",") != want {
		t.Errorf("fstab options %q, want %q", strings.Join(got, ","), want)
	}
	// What is written must mount: mount.cairn reads it back into the same flags.
	flags, err := optionFlags(strings.Join(got, ","), false, nil)
	if err != nil {
		t.Fatalf("mount.cairn refuses what --update-fstab writes: %v", err)
	}
	if want := "--attr-cache=3s --cache-size=2147483648 --read-only -o allow_other,writeback_cache"; strings.Join(flags, " ") != want {
		t.Errorf("mount.cairn reads it as %q, want %q", strings.Join(flags, " "), want)
	}
}
