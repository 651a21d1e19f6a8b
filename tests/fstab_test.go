package tests

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// mountOptions turns the extra flags of the volume's mounts
// (--access-key KEY ...) into mount options (access-key=KEY).
func mountOptions(args []string) []string {
	var opts []string
	for i := 0; i < len(args); i++ {
		key := strings.TrimLeft(args[i], "-")
		if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			opts = append(opts, key+"="+args[i+1])
			i++
		} else {
			opts = append(opts, key)
		}
	}
	return opts
}

// TestMountFromFstab mounts a volume the way a boot does: a line of type
// cairn in an fstab, mount(8) and its helper /sbin/mount.cairn, which
// 'cairn install' puts there (a symlink to the cairn it installs). It runs
// in a private mount namespace, where /sbin is a scratch directory and the
// fstab is a scratch file: the machine's own are not touched, and cairn
// is installed into a scratch bin directory. Then 'mount -t cairn -o ro' mounts
// it read-only, and an unknown option is refused in one line.
func TestMountFromFstab(t *testing.T) {
	needMount(t)
	if os.Geteuid() != 0 {
		t.Skip("mount namespaces need root")
	}
	if singleProcess() {
		t.Skipf("the %s engine serves one process at a time; the check after the namespace needs a second", engineName())
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("no unshare(1)")
	}
	v := formatVolume(t)
	work := tempDir(t)
	sbin, err := filepath.EvalSymlinks("/sbin")
	if err != nil {
		t.Fatal(err)
	}
	options := append([]string{"_netdev", "nosuid", "attr-cache=2s", "metrics=off",
		"cache-dir=" + filepath.Join(work, "cache"), "log=" + filepath.Join(work, "mount.log")}, mountOptions(v.mountArgs)...)
	fstab := filepath.Join(work, "fstab")
	line := fmt.Sprintf("# scratch fstab\n%s %s cairn %s 0 0\n", v.meta, v.dir, strings.Join(options, ","))
	if err := os.WriteFile(fstab, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	roOptions := append([]string{"ro", "metrics=off", "cache-dir=" + filepath.Join(work, "cache"), "log=" + filepath.Join(work, "mount.log")}, mountOptions(v.mountArgs)...)
	script := `set -u
trap '"$CAIRN" umount --force "$DIR" >/dev/null 2>&1' EXIT
mount -t tmpfs cairn-helper "$SBIN" || exit 1
"$CAIRN" install --bin-dir "$BIN" || exit 1
mount --fstab "$FSTAB" "$DIR" || { echo "fstab mount failed"; cat "$LOG"; exit 1; }
grep " $DIR " /proc/self/mountinfo
echo hello > "$DIR/from-fstab" && echo "wrote: $(cat "$DIR/from-fstab")"
"$CAIRN" umount "$DIR" || exit 1
mount -t cairn -o "$RO" "$META" "$DIR" || { echo "ro mount failed"; cat "$LOG"; exit 1; }
echo "read: $(cat "$DIR/from-fstab")"
touch "$DIR/other" 2>/dev/null || echo "touch refused"
"$CAIRN" umount "$DIR" || exit 1
mount -t cairn -o frobnicate "$META" "$DIR" 2>&1; echo "unknown option: exit $?"
`
	cmd := exec.Command(unshare, "-m", "--propagation", "private", "sh", "-c", script)
	cmd.Env = append(os.Environ(), "CAIRN="+cairnBin, "SBIN="+sbin, "BIN="+filepath.Join(work, "bin"), "FSTAB="+fstab, "DIR="+v.dir,
		"META="+v.meta, "RO="+strings.Join(roOptions, ","), "LOG="+filepath.Join(work, "mount.log"))
	outBytes, err := cmd.CombinedOutput()
	out := string(outBytes)
	if err != nil {
		t.Fatalf("the script in a private namespace failed: %v\n%s", err, out)
	}
	installed := fmt.Sprintf("installed %s and %s -> %s", filepath.Join(work, "bin", "cairn"), "/sbin/mount.cairn", filepath.Join(work, "bin", "cairn"))
	for _, want := range []string{installed, "fuse.cairn cairn:" + v.name, "nosuid", "wrote: hello", "read: hello", "touch refused",
		`mount.cairn: bad mount option "frobnicate"`} {
		if !strings.Contains(out, want) {
			t.Errorf("the script's output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "unknown option: exit 0") {
		t.Errorf("an unknown option mounted:\n%s", out)
	}
	// The mounts were real: the file is in the volume.
	v.mount(t)
	if data, err := os.ReadFile(v.path("from-fstab")); err != nil || string(data) != "hello\n" {
		t.Errorf("the file written through the fstab mount reads %q, %v", data, err)
	}
}

// TestUpdateFstab: 'cairn mount --update-fstab' adds the volume's line
// to the fstab, with the flags given, and a second mount replaces it.
func TestUpdateFstab(t *testing.T) {
	v := formatVolume(t)
	fstab := filepath.Join(tempDir(t), "fstab")
	other := "/dev/sdb1 /data xfs defaults 0 2\n"
	if err := os.WriteFile(fstab, []byte(other), 0o644); err != nil {
		t.Fatal(err)
	}
	v.mount(t, "--update-fstab", "--fstab", fstab, "--attr-cache", "3s")
	if !strings.Contains(v.mnt.Output(), "added the line of "+v.dir+" in "+fstab) {
		t.Errorf("cairn mount --update-fstab did not say what it did:\n%s", v.mnt.Output())
	}
	check := func(wantOption, notOption string) {
		t.Helper()
		data, err := os.ReadFile(fstab)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		if len(lines) != 2 || lines[0]+"\n" != other {
			t.Fatalf("the fstab holds:\n%s\nwant the other line and one of the volume", data)
		}
		fields := strings.Fields(lines[1])
		if len(fields) != 6 || fields[0] != v.meta || fields[1] != v.dir || fields[2] != "cairn" || fields[4] != "0" || fields[5] != "0" {
			t.Fatalf("the volume's line is %q", lines[1])
		}
		opts := "," + fields[3] + ","
		if !strings.Contains(opts, ",_netdev,") || !strings.Contains(opts, ","+wantOption+",") || (notOption != "" && strings.Contains(opts, ","+notOption+",")) {
			t.Errorf("the volume's options are %s, want _netdev and %s", fields[3], wantOption)
		}
		if strings.Contains(opts, "update-fstab") || strings.Contains(opts, ",fstab=") {
			t.Errorf("the options carry --update-fstab itself: %s", fields[3])
		}
	}
	check("attr-cache=3s", "")
	v.unmount(t)
	v.mount(t, "--update-fstab", "--fstab", fstab, "--entry-cache", "4s")
	if !strings.Contains(v.mnt.Output(), "replaced the line of "+v.dir) {
		t.Errorf("the second mount did not say it replaced the line:\n%s", v.mnt.Output())
	}
	check("entry-cache=4s", "attr-cache=3s")
	wantUserError(t, runCairn(t, "mount", v.meta, tempDir(t), "--fstab", fstab), "--update-fstab")
}
