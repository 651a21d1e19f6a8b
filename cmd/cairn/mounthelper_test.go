package main

import (
	"io"
	"strings"
	"testing"
)

func TestMountHelperArgs(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string // the cairn command line, or the error's text
		fake bool
	}{
		{"fstab options", []string{"redis://h/1", "/mnt/v", "-o", "rw,_netdev,cache-size=10G,attr-cache=2s,allow_other,x-systemd.requires=redis.service"},
			"mount redis://h/1 /mnt/v -d --cache-size=10G --attr-cache=2s -o allow_other", false},
		{"read-only, a flag alone, kernel options", []string{"sqlite3:///v.db", "/mnt", "-o", "ro,writeback,nosuid,nodev", "-t", "cairn"},
			"mount sqlite3:///v.db /mnt -d --read-only --writeback -o nosuid,nodev", false},
		{"atime options", []string{"sqlite3:///v.db", "/mnt", "-o", "noatime,_netdev"}, "mount sqlite3:///v.db /mnt -d -o noatime", false},
		{"mount's own flags", []string{"-sfnv", "sqlite3:///v.db", "/mnt"}, "mount sqlite3:///v.db /mnt -d", true},
		{"a sub-directory", []string{"sqlite3:///v.db", "/mnt", "-o", "subdir=/projects/a"}, "mount sqlite3:///v.db /mnt -d --subdir=/projects/a", false},
		{"no options", []string{"sqlite3:///v.db", "/mnt", "-o", "defaults"}, "mount sqlite3:///v.db /mnt -d", false},
		{"sloppy ignores the unknown", []string{"-s", "sqlite3:///v.db", "/mnt", "-o", "frobnicate,cache-size=1G"}, "mount sqlite3:///v.db /mnt -d --cache-size=1G", false},
		{"unknown option", []string{"sqlite3:///v.db", "/mnt", "-o", "frobnicate"}, `bad mount option "frobnicate"`, false},
		{"malformed value", []string{"sqlite3:///v.db", "/mnt", "-o", "cache-size=lots"}, `bad mount option "cache-size=lots": invalid argument "lots" for "--cache-size" flag: invalid size`, false},
		{"malformed duration", []string{"sqlite3:///v.db", "/mnt", "-o", "attr-cache=soon"}, `bad mount option "attr-cache=soon"`, false},
		{"value missing", []string{"sqlite3:///v.db", "/mnt", "-o", "cache-size"}, `it needs a value`, false},
		{"not an option of the helper", []string{"sqlite3:///v.db", "/mnt", "-o", "update-fstab"}, `bad mount option "update-fstab"`, false},
		{"one argument", []string{"sqlite3:///v.db"}, "want META-URL and MOUNTPOINT", false},
		{"namespace", []string{"sqlite3:///v.db", "/mnt", "-N", "/proc/1/ns/mnt"}, "-N (mount in another namespace) is not supported", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, fake, err := helperMountArgs(c.args, io.Discard)
			text := strings.Join(got, " ")
			if err != nil {
				text = err.Error()
				if strings.Contains(text, "\n") {
					t.Errorf("the error is more than one line: %q", text)
				}
			}
			if !strings.Contains(text, c.want) || (err == nil && text != c.want) {
				t.Errorf("mount.cairn %v:\n got %s\nwant %s", c.args, text, c.want)
			}
			if fake != c.fake {
				t.Errorf("fake = %v, want %v", fake, c.fake)
			}
		})
	}
}

func TestMountHelperExitStatus(t *testing.T) {
	var out strings.Builder
	if code := runMountHelper([]string{"sqlite3:///v.db", "/mnt", "-o", "frobnicate"}, &out); code != helperUsage {
		t.Errorf("an unknown option exits %d, want %d", code, helperUsage)
	}
	if lines := strings.Count(out.String(), "\n"); lines != 1 || !strings.HasPrefix(out.String(), "mount.cairn: ") {
		t.Errorf("an unknown option says %q, want one line", out.String())
	}
	out.Reset()
	if code := runMountHelper([]string{"sqlite3:///v.db", t.TempDir() + "/missing"}, &out); code != helperFailure {
		t.Errorf("a missing mount point exits %d, want %d: %s", code, helperFailure, out.String())
	}
}
