package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cairn/internal/testenv"
)

// TestHelp: 'cairn help CMD', 'CMD --help' and 'CMD -h' print the same
// help on stdout: usage line, description, examples, every flag in --long
// form with the defaults people write (1 GiB, 1m), and exit 0.
func TestHelp(t *testing.T) {
	var first string
	for _, args := range [][]string{{"help", "mount"}, {"mount", "--help"}, {"mount", "-h"}} {
		r := runCairn(t, args...)
		if r.code != 0 || r.stderr != "" {
			t.Errorf("cairn %v: exit %d, stderr %q", args, r.code, r.stderr)
		}
		for _, want := range []string{
			"Usage:\n  cairn mount META-URL MOUNTPOINT [flags]", "mount a volume", "Examples:\n  cairn mount ",
			"--cache-size size", "(default 1 GiB)", "--buffer-size size", "(default 300 MiB)",
			"--io-timeout duration", "(default 1m)", "-d, --background", "-o, --options",
			"-v, --verbose", "-q, --quiet", "--log-level",
		} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("cairn %v does not say %q:\n%s", args, want, r.stdout)
			}
		}
		for _, bad := range []string{"1073741824", "1m0s", "-cache-size value"} {
			if strings.Contains(r.stdout, bad) {
				t.Errorf("cairn %v shows %q", args, bad)
			}
		}
		if first == "" {
			first = r.stdout
		} else if r.stdout != first {
			t.Errorf("cairn %v differs from cairn help mount", args)
		}
	}
	if r := runCairn(t, "status", "-h"); r.code != 0 || !strings.Contains(r.stdout, "cairn status META-URL") || !strings.Contains(r.stdout, "$META_PASSWORD") {
		t.Errorf("cairn status -h: exit %d, %q", r.code, r.stdout)
	}
}

// TestVersionFlag: --version, -V and 'version' print the same line.
func TestVersionFlag(t *testing.T) {
	want := cairnOK(t, "version")
	for _, flag := range []string{"--version", "-V"} {
		if got := cairnOK(t, flag); got != want {
			t.Errorf("cairn %s printed %q, want %q", flag, got, want)
		}
	}
}

// TestCompletion: the completion scripts are there for each shell.
func TestCompletion(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish"} {
		out := cairnOK(t, "completion", shell)
		if !strings.Contains(out, "cairn") || len(out) < 1000 {
			t.Errorf("cairn completion %s printed %d bytes", shell, len(out))
		}
	}
	// The shells ask cairn itself for what may follow.
	out := cairnOK(t, "__complete", "mount", "x", "y", "--cache-")
	for _, want := range []string{"--cache-dir", "--cache-size", "--cache-writes"} {
		if !strings.Contains(out, want) {
			t.Errorf("completing 'cairn mount x y --cache-' does not offer %s:\n%s", want, out)
		}
	}
	out = cairnOK(t, "__complete", "format", "x", "y", "--compress", "")
	if !strings.Contains(out, "lz4\nzstd\n") {
		t.Errorf("completing 'cairn format x y --compress ' does not offer lz4 and zstd:\n%s", out)
	}
	out = cairnOK(t, "__complete", "status", "x", "--log-level", "")
	if !strings.Contains(out, "debug\ninfo\nwarn\nerror\n") {
		t.Errorf("completing 'cairn status x --log-level ' does not offer the levels:\n%s", out)
	}
}

// TestCLIBadInput: an unknown command or flag, a malformed size or
// duration, a help topic that does not exist and a size that is almost
// certainly a mistake are one line each, with no usage dump.
func TestCLIBadInput(t *testing.T) {
	metaURL := newMetaURL(t)
	dir := tempDir(t)
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"frobnicate"}, []string{"unknown command", "frobnicate", "cairn --help"}},
		{[]string{"help", "frobnicate"}, []string{"unknown command", "frobnicate"}},
		{[]string{"status", metaURL, "--frobnicate"}, []string{"unknown flag", "--frobnicate"}},
		{[]string{"mount", metaURL, dir, "--cache-size", "lots"}, []string{"--cache-size", "lots"}},
		{[]string{"mount", metaURL, dir, "--attr-cache", "soon"}, []string{"--attr-cache", "soon"}},
		{[]string{"mount", metaURL, dir, "-o", "allow_other,frobnicate"}, []string{"unknown -o option", "frobnicate"}},
		{[]string{"mount", metaURL, dir, "-d", "-o", "cache-size=10G"}, []string{"unknown -o option", "cache-size=10G", "--cache-size"}},
		{[]string{"mount", metaURL, dir, "--cache-size", "102400"}, []string{"--cache-size 102400", "100 KiB", "unit"}},
		{[]string{"mount", metaURL, dir, "--buffer-size", "300"}, []string{"--buffer-size 300", "unit"}},
		{[]string{"format", metaURL, "vol-a", "--bucket", dir, "--capacity", "100"}, []string{"--capacity 100", "unit"}},
		{[]string{"config", metaURL, "--capacity", "100"}, []string{"--capacity 100", "unit"}},
		{[]string{"status", metaURL, "--log-level", "loud"}, []string{"--log-level", "loud"}},
		{[]string{"status", metaURL, "-v", "-q"}, []string{"--verbose", "--quiet"}},
		{[]string{"status"}, []string{"argument"}},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			r := runCairn(t, c.args...)
			wantUserError(t, r, c.want...)
			if strings.Contains(r.stderr+r.stdout, "Usage:") {
				t.Errorf("a mistake printed the usage:\n%s%s", r.stderr, r.stdout)
			}
		})
	}
}

// TestVerbose: -v logs debug lines on stderr for any command, and
// without it there are none.
func TestVerbose(t *testing.T) {
	v := formatVolume(t)
	if r := runCairn(t, "status", v.meta, "-v"); r.code != 0 || !strings.Contains(r.stderr, "level=DEBUG") {
		t.Errorf("status -v: exit %d, stderr %q; want debug lines", r.code, r.stderr)
	}
	if r := runCairn(t, "status", v.meta); r.code != 0 || r.stderr != "" {
		t.Errorf("status: exit %d, stderr %q; want nothing on stderr", r.code, r.stderr)
	}
}

// TestMountLogLevel: --log-level, -q and -v set what a mount logs, in the
// foreground and, passed on to the process that serves it, in the
// background.
func TestMountLogLevel(t *testing.T) {
	needMount(t)
	v := formatVolume(t)
	v.mount(t, "-v")
	if out := v.mnt.Output(); !strings.Contains(out, "level=DEBUG") {
		t.Errorf("a mount with -v logged no debug line:\n%s", out)
	}
	v.unmount(t)
	v.mount(t)
	if out := v.mnt.Output(); strings.Contains(out, "level=DEBUG") {
		t.Errorf("a mount without -v logged debug lines:\n%s", out)
	}
	v.unmount(t)

	for _, c := range []struct {
		flags     []string
		wantInfo  bool
		wantDebug bool
	}{
		{[]string{"--quiet"}, false, false},
		{[]string{"--log-level", "warn"}, false, false},
		{[]string{"--log-level", "debug"}, true, true},
	} {
		log := filepath.Join(tempDir(t), "mount.log")
		args := append([]string{"mount", v.meta, v.dir, "-d", "--log", log, "--cache-dir", tempDir(t)}, c.flags...)
		cairnOK(t, args...)
		cairnOK(t, "umount", v.dir)
		testenv.ForceUnmount(t, v.dir)
		raw, err := os.ReadFile(log)
		must(t, err, "read the mount's log")
		if got := strings.Contains(string(raw), "msg=mounted"); got != c.wantInfo {
			t.Errorf("mount -d %v: the log says mounted: %v, want %v:\n%s", c.flags, got, c.wantInfo, raw)
		}
		if got := strings.Contains(string(raw), "level=DEBUG"); got != c.wantDebug {
			t.Errorf("mount -d %v: debug lines in the log: %v, want %v:\n%s", c.flags, got, c.wantDebug, raw)
		}
	}
}
