package tests

import (
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestPermissions runs system calls as uid 65534 against files owned by
// root and checks each denial.
func TestPermissions(t *testing.T) {
	v := newVolume(t)
	p := v.path
	must(t, os.Mkdir(p("closed"), 0o755), "mkdir")
	must(t, os.Chmod(p("closed"), 0o755), "chmod")
	writeFile(t, p("closed", "public"), []byte("x"))
	must(t, os.Chmod(p("closed", "public"), 0o644), "chmod")
	writeFile(t, p("closed", "secret"), []byte("x"))
	must(t, os.Chmod(p("closed", "secret"), 0o600), "chmod")
	must(t, os.Mkdir(p("private"), 0o700), "mkdir")
	must(t, os.Chmod(p("private"), 0o700), "chmod")
	writeFile(t, p("private", "f"), nil)
	must(t, os.Mkdir(p("open"), 0o777), "mkdir")
	must(t, os.Chmod(p("open"), 0o777), "chmod")

	cases := []struct {
		args []string
		want string
	}{
		{[]string{"read", p("closed", "public")}, "ok"},
		{[]string{"write", p("closed", "public"), "y"}, "EACCES"},
		{[]string{"read", p("closed", "secret")}, "EACCES"},
		{[]string{"create", p("closed", "new")}, "EACCES"},
		{[]string{"mkdir", p("closed", "newdir")}, "EACCES"},
		{[]string{"unlink", p("closed", "public")}, "EACCES"},
		{[]string{"rename", p("closed", "public"), p("open", "stolen")}, "EACCES"},
		{[]string{"readdir", p("closed")}, "ok"},
		{[]string{"readdir", p("private")}, "EACCES"},
		{[]string{"stat", p("private", "f")}, "EACCES"},
		{[]string{"chmod", p("closed", "public"), "777"}, "EPERM"},
		{[]string{"chown", p("closed", "public"), "65534", "65534"}, "EPERM"},
		{[]string{"truncate", p("closed", "public"), "0"}, "EACCES"},
		{[]string{"access", p("closed", "public"), "2"}, "EACCES"},
		{[]string{"access", p("closed", "public"), "4"}, "ok"},
		{[]string{"create", p("open", "mine")}, "ok"},
		{[]string{"chmod", p("open", "mine"), "600"}, "ok"},
		{[]string{"unlink", p("open", "mine")}, "ok"},
	}
	for _, c := range cases {
		if got := asNobody(t, c.args...); got != c.want {
			t.Errorf("as uid 65534: %v: %s, want %s", c.args, got, c.want)
		}
	}
	// With fs.protected_hardlinks (the usual setting), a user may not
	// hard-link a file they could not read and write.
	if b, _ := os.ReadFile("/proc/sys/fs/protected_hardlinks"); strings.TrimSpace(string(b)) == "1" {
		if got := asNobody(t, "link", p("closed", "secret"), p("open", "hard")); got != "EPERM" {
			t.Errorf("as uid 65534: link to an unreadable file: %s, want EPERM", got)
		}
	}
	wantContent(t, p("closed", "public"), []byte("x"))
	if st := lstat(t, p("closed", "public")); st.Mode&0o7777 != 0o644 || st.Uid != 0 {
		t.Errorf("a denied call changed the file: mode %o uid %d", st.Mode, st.Uid)
	}
	// Files a user creates are theirs.
	if got := asNobody(t, "create", p("open", "owned")); got != "ok" {
		t.Fatalf("create: %s", got)
	}
	if st := lstat(t, p("open", "owned")); st.Uid != 65534 || st.Gid != 65534 {
		t.Errorf("a file created by uid 65534 is owned by %d:%d", st.Uid, st.Gid)
	}
	// chgrp to a group the user is not in is refused; chown by root works.
	if got := asNobody(t, "chown", p("open", "owned"), "65534", "0"); got != "EPERM" {
		t.Errorf("chgrp to a foreign group: %s, want EPERM", got)
	}
	must(t, os.Chown(p("open", "owned"), 123, 456), "chown by root")
	if st := lstat(t, p("open", "owned")); st.Uid != 123 || st.Gid != 456 {
		t.Errorf("after chown: %d:%d", st.Uid, st.Gid)
	}
}

func TestStickyBit(t *testing.T) {
	v := newVolume(t)
	tmp := v.path("tmp")
	must(t, os.Mkdir(tmp, 0o777), "mkdir")
	must(t, unix.Chmod(tmp, 0o1777), "chmod")
	if st := lstat(t, tmp); st.Mode&0o7777 != 0o1777 {
		t.Fatalf("mode %o, want 1777", st.Mode&0o7777)
	}
	writeFile(t, v.path("tmp", "roots"), []byte("x"))
	must(t, os.Chmod(v.path("tmp", "roots"), 0o666), "chmod")
	if got := asNobody(t, "unlink", v.path("tmp", "roots")); got != "EPERM" {
		t.Errorf("unlink of another user's file in a sticky directory: %s, want EPERM", got)
	}
	if got := asNobody(t, "rename", v.path("tmp", "roots"), v.path("tmp", "mine")); got != "EPERM" {
		t.Errorf("rename of another user's file in a sticky directory: %s, want EPERM", got)
	}
	if got := asNobody(t, "write", v.path("tmp", "roots"), "y"); got != "ok" {
		t.Errorf("write to a 0666 file in a sticky directory: %s, want ok", got)
	}
	if got := asNobody(t, "create", v.path("tmp", "own")); got != "ok" {
		t.Errorf("create in a sticky directory: %s", got)
	}
	if got := asNobody(t, "rename", v.path("tmp", "own"), v.path("tmp", "own2")); got != "ok" {
		t.Errorf("rename of one's own file in a sticky directory: %s, want ok", got)
	}
	if got := asNobody(t, "unlink", v.path("tmp", "own2")); got != "ok" {
		t.Errorf("unlink of one's own file in a sticky directory: %s, want ok", got)
	}
	// Root may remove anything.
	must(t, os.Remove(v.path("tmp", "roots")), "unlink by root")
}

func TestSetgidDirectory(t *testing.T) {
	v := newVolume(t)
	d := v.path("shared")
	must(t, os.Mkdir(d, 0o775), "mkdir")
	must(t, os.Chown(d, 0, 4242), "chgrp")
	must(t, unix.Chmod(d, 0o2777), "chmod g+s")
	writeFile(t, v.path("shared", "f"), nil)
	if st := lstat(t, v.path("shared", "f")); st.Gid != 4242 {
		t.Errorf("file in a setgid directory has gid %d, want 4242", st.Gid)
	}
	must(t, os.Mkdir(v.path("shared", "sub"), 0o755), "mkdir")
	if st := lstat(t, v.path("shared", "sub")); st.Gid != 4242 || st.Mode&unix.S_ISGID == 0 {
		t.Errorf("directory in a setgid directory: gid %d mode %o, want gid 4242 with setgid", st.Gid, st.Mode)
	}
	// Another user's files get the directory's group too.
	if got := asNobody(t, "create", v.path("shared", "nobodys")); got != "ok" {
		t.Fatalf("create as uid 65534: %s", got)
	}
	if st := lstat(t, v.path("shared", "nobodys")); st.Uid != 65534 || st.Gid != 4242 {
		t.Errorf("file created by uid 65534 in a setgid directory: %d:%d, want 65534:4242", st.Uid, st.Gid)
	}
	// chmod g+s by the owner who is not in the file's group drops setgid.
	if got := asNobody(t, "chmod", v.path("shared", "nobodys"), "2755"); got != "ok" {
		t.Fatalf("chmod by owner: %s", got)
	}
	if st := lstat(t, v.path("shared", "nobodys")); st.Mode&unix.S_ISGID != 0 || st.Mode&0o777 != 0o755 {
		t.Errorf("chmod 2755 by an owner outside the group: mode %o, want 755 without setgid", st.Mode&0o7777)
	}
	// Outside a setgid directory, a file takes its creator's group.
	must(t, os.Mkdir(v.path("plain"), 0o777), "mkdir")
	must(t, os.Chmod(v.path("plain"), 0o777), "chmod")
	if got := asNobody(t, "create", v.path("plain", "f")); got != "ok" {
		t.Fatalf("create: %s", got)
	}
	if st := lstat(t, v.path("plain", "f")); st.Gid != 65534 {
		t.Errorf("file in a plain directory has gid %d, want the creator's 65534", st.Gid)
	}
}
