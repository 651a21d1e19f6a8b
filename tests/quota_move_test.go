package tests

import (
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestQuotaCloneAndExchange: through a real mount, 'cairn clone' into a
// quota'd directory that cannot take the copy fails with one line
// (EDQUOT) and copies nothing, and a RENAME_EXCHANGE between two quota
// trees is judged both ways (each side gains what the other brings less
// what it gives): refused when one side would pass its limit, and counted
// right when it fits ('quota check' after).
func TestQuotaCloneAndExchange(t *testing.T) {
	needMount(t)
	v := formatVolume(t)
	v.mount(t)
	for _, dir := range []string{"q1/a", "q2/b", "q2/c", "src/sub"} {
		must(t, os.MkdirAll(v.path(dir), 0o755), "mkdir "+dir)
	}
	writeFile(t, v.path("q1", "a", "f"), pattern(1, 1<<20))
	writeFile(t, v.path("q2", "b", "f"), pattern(2, 4<<20))
	writeFile(t, v.path("q2", "c", "f"), pattern(3, 2<<20))
	writeFile(t, v.path("src", "f"), pattern(4, 1<<20))
	writeFile(t, v.path("src", "sub", "g"), pattern(5, 2<<20))
	v.unmount(t)
	env := v.passwordEnv()
	for _, q := range [][]string{{"/q1", "3M"}, {"/q2", "100M"}} {
		if r := runCairnEnv(t, env, "quota", "set", v.meta, "--path", q[0], "--capacity", q[1]); r.code != 0 {
			t.Fatalf("cairn quota set %s: exit %d: %s", q[0], r.code, r.stderr)
		}
	}
	v.mount(t)

	r := runCairnEnv(t, env, "clone", v.path("src"), v.path("q1", "copy"))
	wantUserError(t, r, "quota exceeded")
	if _, err := os.Lstat(v.path("q1", "copy")); !os.IsNotExist(err) {
		t.Errorf("a clone refused by the quota left q1/copy: %v", err)
	}

	exchange := func(from, to string) error {
		return unix.Renameat2(unix.AT_FDCWD, from, unix.AT_FDCWD, to, unix.RENAME_EXCHANGE)
	}
	wantErrno(t, exchange(v.path("q1", "a"), v.path("q2", "b")), unix.EDQUOT, "exchange q1/a (1 MiB) with q2/b (4 MiB) under q1's 3 MiB quota")
	wantErrno(t, exchange(v.path("q2", "b"), v.path("q1", "a")), unix.EDQUOT, "the same exchange asked from q2's side")
	if st := lstat(t, v.path("q1", "a", "f")); st.Size != 1<<20 {
		t.Errorf("q1/a/f has %d bytes after the refused exchanges, want 1 MiB", st.Size)
	}
	must(t, exchange(v.path("q1", "a"), v.path("q2", "c")), "exchange q1/a (1 MiB) with q2/c (2 MiB)")
	if st := lstat(t, v.path("q1", "a", "f")); st.Size != 2<<20 {
		t.Errorf("q1/a/f has %d bytes after the exchange, want c's 2 MiB", st.Size)
	}
	v.unmount(t)

	for _, q := range []string{"/q1", "/q2"} {
		r := runCairnEnv(t, env, "quota", "check", v.meta, "--path", q)
		if r.code != 0 || !strings.Contains(r.stdout, "usage is right") {
			t.Errorf("cairn quota check %s after the exchange: exit %d, stdout %q, stderr %q", q, r.code, r.stdout, r.stderr)
		}
	}
}
