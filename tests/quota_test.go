package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestQuotaMount sets a directory quota with 'cairn quota set' and checks
// it through a real mount: a dd-like writer into the directory stops
// with EDQUOT at the limit (within one write), a tree moved in from
// outside that does not fit is refused with EDQUOT, 'quota check' finds
// the usage right once the mount closed, 'status' lists the quota, and
// df in a --subdir mount of
// the directory shows the quota's limits and usage.
func TestQuotaMount(t *testing.T) {
	needMount(t)
	v := formatVolume(t)
	v.mount(t)
	must(t, os.MkdirAll(v.path("q"), 0o755), "mkdir q")
	must(t, os.MkdirAll(v.path("src", "sub"), 0o755), "mkdir src/sub")
	writeFile(t, v.path("src", "a"), pattern(1, 1<<20))
	writeFile(t, v.path("src", "sub", "b"), pattern(2, 1<<20))
	v.unmount(t)
	env := v.passwordEnv()
	quota := func(sub string, args ...string) result {
		return runCairnEnv(t, env, append([]string{"quota", sub, v.meta}, args...)...)
	}
	if r := quota("set", "--path", "/q", "--capacity", "4M", "--inodes", "100"); r.code != 0 {
		t.Fatalf("cairn quota set: exit %d: %s", r.code, r.stderr)
	}

	v.mount(t)
	f, err := os.Create(v.path("q", "f"))
	must(t, err, "create q/f")
	block := pattern(3, 1<<20)
	var failed error
	written := 0
	for i := 0; i < 8 && failed == nil; i++ {
		var n int
		n, failed = f.Write(block)
		written += n
	}
	if failed == nil {
		failed = f.Sync()
	}
	if err := f.Close(); failed == nil {
		failed = err
	}
	wantErrno(t, failed, unix.EDQUOT, "write 8 MiB into a directory with a 4 MiB quota")
	if st := lstat(t, v.path("q", "f")); st.Size < 3<<20 || st.Size > 4<<20 {
		t.Errorf("q/f holds %d bytes after EDQUOT (%d written), want the 4 MiB limit within one 1 MiB write", st.Size, written)
	}
	wantErrno(t, os.Rename(v.path("src"), v.path("q", "src")), unix.EDQUOT, "move a 2 MiB tree into the full quota")
	if _, err := os.Lstat(v.path("src", "sub", "b")); err != nil {
		t.Errorf("the refused move changed src: %v", err)
	}
	must(t, os.Rename(v.path("q", "f"), v.path("f")), "move the file out of the quota")
	must(t, os.Rename(v.path("src"), v.path("q", "src")), "move the tree into the emptied quota")
	v.unmount(t)

	r := quota("check", "--path", "/q")
	if r.code != 0 || !strings.Contains(r.stdout, "usage is right") {
		t.Errorf("cairn quota check after the moves: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = quota("get", "--path", "/q")
	if r.code != 0 || !strings.Contains(r.stdout, "inodes 4 of 100") {
		t.Errorf("cairn quota get: exit %d, stdout %q, stderr %q; want 4 inodes of 100", r.code, r.stdout, r.stderr)
	}

	r = runCairnEnv(t, env, "status", v.meta)
	var status struct {
		Quotas []struct {
			Path       string `json:"path"`
			UsedSpace  int64  `json:"used_space"`
			UsedInodes int64  `json:"used_inodes"`
			Capacity   int64  `json:"capacity"`
			Inodes     int64  `json:"inodes"`
		} `json:"quotas"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &status); r.code != 0 || err != nil || len(status.Quotas) != 1 ||
		status.Quotas[0].Path != "/q" || status.Quotas[0].UsedSpace != 2<<20 || status.Quotas[0].UsedInodes != 4 ||
		status.Quotas[0].Capacity != 4<<20 || status.Quotas[0].Inodes != 100 {
		t.Errorf("cairn status does not list the quota on /q (2 MiB and 4 inodes of 4 MiB and 100): exit %d, %v, stdout %s, stderr %q", r.code, err, r.stdout, r.stderr)
	}

	v.mount(t, "--subdir", "/q")
	st := statfs(t, v.dir)
	if total := st.Blocks * uint64(st.Bsize); total != 4<<20 {
		t.Errorf("df in a --subdir mount of /q: %d bytes, want the quota's 4 MiB", total)
	}
	if used := (st.Blocks - st.Bfree) * uint64(st.Bsize); used != 2<<20 {
		t.Errorf("df in a --subdir mount of /q: %d bytes used, want the tree's 2 MiB", used)
	}
	if st.Files != 100 || st.Files-st.Ffree != 4 {
		t.Errorf("df in a --subdir mount of /q: %d inodes, %d free; want 100 and 96", st.Files, st.Ffree)
	}
}

// TestQuotaBadInput checks that a quota on a missing path or a file, a
// negative or malformed size or inode count, and a volume that is not
// formatted each end in one line, changing nothing.
func TestQuotaBadInput(t *testing.T) {
	needMount(t)
	v := formatVolume(t)
	v.mount(t)
	must(t, os.Mkdir(v.path("d"), 0o755), "mkdir d")
	writeFile(t, v.path("file"), []byte("x"))
	v.unmount(t)
	env := v.passwordEnv()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"set", v.meta, "--path", "/missing", "--capacity", "1M"}, "does not exist"},
		{[]string{"set", v.meta, "--path", "/file", "--capacity", "1M"}, "not a directory"},
		{[]string{"set", v.meta, "--path", "/d", "--capacity=-1"}, "invalid"},
		{[]string{"set", v.meta, "--path", "/d", "--capacity", "lots"}, "invalid size"},
		{[]string{"set", v.meta, "--path", "/d", "--inodes=-5"}, "invalid --inodes"},
		{[]string{"set", v.meta, "--path", "/d"}, "--capacity"},
		{[]string{"get", v.meta, "--path", "/d"}, "no quota"},
		{[]string{"delete", v.meta, "--path", "/d"}, "no quota"},
		{[]string{"set", "sqlite3://" + filepath.Join(t.TempDir(), "none.db"), "--path", "/d", "--inodes", "5"}, ""},
	} {
		wantUserError(t, runCairnEnv(t, env, append([]string{"quota"}, c.args...)...), c.want)
	}
	r := runCairnEnv(t, env, "quota", "list", v.meta)
	if r.code != 0 || r.stdout != "" {
		t.Errorf("cairn quota list after refused sets: exit %d, stdout %q, stderr %q; want no quota", r.code, r.stdout, r.stderr)
	}
}
