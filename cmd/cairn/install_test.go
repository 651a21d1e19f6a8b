package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstall: install copies the program into the bin directory and
// makes mount.cairn in the helper directory a symlink to the copy; it
// replaces an earlier helper, leaves a program already in place alone,
// and refuses a directory where the helper goes.
func TestInstall(t *testing.T) {
	scratch := t.TempDir()
	self := filepath.Join(scratch, "build", "cairn-built")
	program := []byte("#!/bin/sh\necho a cairn build\n")
	if err := os.MkdirAll(filepath.Dir(self), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(self, program, 0o700); err != nil {
		t.Fatal(err)
	}
	binDir, helperDir := filepath.Join(scratch, "usr/local/bin"), filepath.Join(scratch, "sbin")
	if err := os.MkdirAll(helperDir, 0o755); err != nil {
		t.Fatal(err)
	}
	// An earlier install pointed elsewhere.
	if err := os.Symlink("/nowhere/cairn", filepath.Join(helperDir, helperName)); err != nil {
		t.Fatal(err)
	}
	check := func(bin, helper string) {
		t.Helper()
		if bin != filepath.Join(binDir, "cairn") || helper != filepath.Join(helperDir, helperName) {
			t.Fatalf("installed %s and %s, want cairn in %s and %s in %s", bin, helper, binDir, helperName, helperDir)
		}
		data, err := os.ReadFile(bin)
		if err != nil || string(data) != string(program) {
			t.Errorf("%s holds %q (%v), want the program", bin, data, err)
		}
		if st, err := os.Stat(bin); err != nil || st.Mode().Perm() != 0o755 {
			t.Errorf("%s: %v, %v; want mode 0755", bin, st.Mode(), err)
		}
		if target, err := os.Readlink(helper); err != nil || target != bin {
			t.Errorf("%s links to %q (%v), want %s", helper, target, err, bin)
		}
		left, _ := filepath.Glob(filepath.Join(scratch, "*", ".*"))
		more, _ := filepath.Glob(filepath.Join(binDir, ".*"))
		if len(left)+len(more) > 0 {
			t.Errorf("temporary files left: %v %v", left, more)
		}
	}
	bin, helper, err := install(self, binDir, helperDir)
	if err != nil {
		t.Fatal(err)
	}
	check(bin, helper)
	// Run from where it is installed: nothing to copy, the helper stays.
	if bin, helper, err = install(bin, binDir, helperDir); err != nil {
		t.Fatal(err)
	}
	check(bin, helper)

	blocked := filepath.Join(scratch, "blocked")
	if err := os.MkdirAll(filepath.Join(blocked, helperName), 0o755); err != nil {
		t.Fatal(err)
	}
	_, _, err = install(self, binDir, blocked)
	if err == nil || !strings.Contains(err.Error(), "a directory is in the way") || strings.Contains(err.Error(), "\n") {
		t.Errorf("install over a directory named %s: %v, want one line saying a directory is in the way", helperName, err)
	}
}
