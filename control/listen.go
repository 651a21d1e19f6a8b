package control

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// Dir is where a mount run by the current user puts its socket: /run/cairn
// for root, the user's runtime directory (XDG_RUNTIME_DIR) or a directory
// of their own in the temporary directory for anyone else.
func Dir() string {
	if os.Geteuid() == 0 {
		return "/run/cairn"
	}
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		return filepath.Join(d, "cairn")
	}
	return filepath.Join(os.TempDir(), "cairn-"+strconv.Itoa(os.Geteuid()))
}

// listen creates the socket of this process in dir. The directory is the
// mount owner's and mode 0711: others may reach a socket whose name they
// know (from .stats, which only those who may enter the mount read) but
// may neither list nor plant one. The socket is 0666 when every user may
// use the mount (allow_other), else 0600; either way the caller's identity
// is checked on every connection.
func listen(dir string, shared bool) (*net.UnixListener, string, error) {
	if err := os.MkdirAll(dir, 0o711); err != nil {
		return nil, "", fmt.Errorf("create the control directory %s: %w", dir, err)
	}
	var st syscall.Stat_t
	if err := syscall.Lstat(dir, &st); err != nil {
		return nil, "", fmt.Errorf("control directory %s: %w", dir, err)
	}
	if st.Uid != uint32(os.Geteuid()) || st.Mode&0o022 != 0 || st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
		return nil, "", fmt.Errorf("control directory %s is not a directory of uid %d that only it may write to", dir, os.Geteuid())
	}
	path := filepath.Join(dir, strconv.Itoa(os.Getpid())+".sock")
	// A socket of this name is a leftover of a dead process that had our
	// process id: nothing listens on it any more.
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return nil, "", fmt.Errorf("remove the stale control socket %s: %w", path, err)
	}
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, "", fmt.Errorf("listen on the control socket %s: %w", path, err)
	}
	l.SetUnlinkOnClose(true)
	mode := os.FileMode(0o600)
	if shared {
		mode = 0o666
	}
	if err := os.Chmod(path, mode); err != nil {
		l.Close()
		return nil, "", fmt.Errorf("set the mode of the control socket %s: %w", path, err)
	}
	return l, path, nil
}
