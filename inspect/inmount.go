package inspect

import (
	"fmt"
	"path/filepath"
	"strings"
)

// InMount is the path of t from its mount's root ("/" for the root), as
// the mount's control channel takes it: the symbolic links of the
// directories on the way are resolved here, the last name is kept as it
// is (a command acts on a link, not on what it points to).
func (t Target) InMount() (string, error) {
	return InMount(t.Path, t.MountPoint)
}

// InMount is the path of abs, a name that need not exist yet in a
// directory on the mount at mountPoint, from that mount's root.
func InMount(abs, mountPoint string) (string, error) {
	if abs == mountPoint {
		return "/", nil
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return "", fmt.Errorf("%s: %w", abs, err)
	}
	rel, err := filepath.Rel(mountPoint, filepath.Join(dir, filepath.Base(abs)))
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", fmt.Errorf("%s leads out of the mount %s through a symbolic link", abs, mountPoint)
	}
	if rel == "." {
		return "/", nil
	}
	return "/" + filepath.ToSlash(rel), nil
}
