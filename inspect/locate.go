package inspect

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"cairn/bench/fsbench"
	"cairn/meta"
)

// Target is a path inside a mounted cairn volume.
type Target struct {
	Path       string // absolute
	MountPoint string
	// MetaURL is the volume's metadata URL as the mount reports it in its
	// .stats file (see package vfs): a password is masked there, and
	// Locate drops the mask so that the engine reads the password from
	// the environment (META_PASSWORD, REDIS_PASSWORD), as a mount does.
	MetaURL string
	Masked  bool // the reported URL had a password
	Ino     meta.Ino
	// Control is the address of the mount's control channel (package
	// control), where commands run inside the mount; empty for a mount of
	// a release without one.
	Control string
}

// PasswordHint is what to add to a failure to connect when the mount's
// URL had a password.
const PasswordHint = " (the mount reports its metadata URL without the password: give it in META_PASSWORD, or REDIS_PASSWORD for Redis)"

// Locate finds the cairn mount that holds path, the metadata URL that
// mount reports and path's inode (a cairn mount's inode numbers are the
// volume's). A path on no cairn mount is an error.
func Locate(path string) (Target, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return Target{}, fmt.Errorf("%s: %w", path, err)
	}
	var st syscall.Stat_t
	if err := syscall.Lstat(abs, &st); err != nil {
		if m := fsbench.FindMount(abs); errors.Is(err, syscall.ENOTCONN) && m != nil && m.Cairn {
			return Target{}, fmt.Errorf("%s is on the cairn mount %s, whose process is gone: run 'cairn umount --force %s', then mount it again", path, m.Point, m.Point)
		}
		return Target{}, fmt.Errorf("%s: %w", path, err)
	}
	m := fsbench.FindMount(abs)
	if m == nil || !m.Cairn {
		return Target{}, fmt.Errorf("%s is not inside a cairn mount", path)
	}
	data, err := os.ReadFile(filepath.Join(m.Point, ".stats"))
	if err != nil {
		return Target{}, fmt.Errorf("%s is on %s, whose .stats cannot be read (%v): is it a cairn mount?", path, m.Point, err)
	}
	var stats struct {
		MetaURL string `json:"meta_url"`
		Control string `json:"control"`
	}
	if err := json.Unmarshal(data, &stats); err != nil || stats.MetaURL == "" {
		return Target{}, fmt.Errorf("the cairn mount at %s does not report its metadata URL: remount it with this release", m.Point)
	}
	url := strings.Replace(stats.MetaURL, ":****@", "@", 1)
	return Target{Path: abs, MountPoint: m.Point, MetaURL: url, Masked: url != stats.MetaURL, Ino: meta.Ino(st.Ino), Control: stats.Control}, nil
}
