package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
)

// Where 'cairn install' puts cairn and its mount helper by default: a
// directory on every PATH, and the directory mount(8) looks for helpers
// in (see helperPath).
const (
	defaultBinDir    = "/usr/local/bin"
	defaultHelperDir = "/sbin"
)

func installCommand() *cobra.Command {
	c := &cobra.Command{
		Use:   "install",
		Short: "install this cairn binary and mount.cairn, mount(8)'s helper, so that 'mount -t cairn' and /etc/fstab mount volumes",
		Example: "  sudo bin/cairn install\n" +
			"  cairn install --bin-dir ~/bin --helper-dir /tmp/stage/sbin",
		Args: exactArgs(0),
	}
	fs := c.Flags()
	binDir := fs.String("bin-dir", defaultBinDir, "directory cairn is copied into")
	helperDir := fs.String("helper-dir", defaultHelperDir, "directory of the "+helperName+" symlink to it (mount(8) looks in /sbin)")
	c.RunE = func(*cobra.Command, []string) error {
		self, err := os.Executable()
		if err != nil {
			return fmt.Errorf("find this program: %w", err)
		}
		bin, helper, err := install(self, *binDir, *helperDir)
		if err != nil {
			return err
		}
		inform(os.Stdout, "installed %s and %s -> %s", bin, helper, bin)
		return nil
	}
	return c
}

// install copies the program at self to binDir/cairn (unless it is that
// file already) and makes helperDir/mount.cairn a symlink to the copy;
// both replace what was there at once (written beside, then renamed), so
// a running cairn or a mount in progress is not disturbed. It returns
// the two paths.
func install(self, binDir, helperDir string) (bin, helper string, err error) {
	if binDir, err = filepath.Abs(binDir); err != nil {
		return "", "", err
	}
	if helperDir, err = filepath.Abs(helperDir); err != nil {
		return "", "", err
	}
	bin = filepath.Join(binDir, "cairn")
	helper = filepath.Join(helperDir, helperName)
	if err := copyProgram(self, bin); err != nil {
		return "", "", installError(bin, err)
	}
	if err := os.MkdirAll(helperDir, 0o755); err != nil {
		return "", "", installError(helper, err)
	}
	tmp := filepath.Join(helperDir, "."+helperName+".new")
	os.Remove(tmp)
	if err := os.Symlink(bin, tmp); err != nil {
		return "", "", installError(helper, err)
	}
	if st, err := os.Lstat(helper); err == nil && st.IsDir() {
		os.Remove(tmp)
		return "", "", fmt.Errorf("install %s: a directory is in the way", helper)
	}
	if err := os.Rename(tmp, helper); err != nil {
		os.Remove(tmp)
		return "", "", installError(helper, err)
	}
	return bin, helper, nil
}

// copyProgram copies the executable self to dst, mode 0755.
func copyProgram(self, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	src, err := os.Open(self)
	if err != nil {
		return err
	}
	defer src.Close()
	if from, err := src.Stat(); err == nil {
		if to, err := os.Stat(dst); err == nil && os.SameFile(from, to) {
			return nil
		}
	}
	out, err := os.CreateTemp(filepath.Dir(dst), ".cairn-install-*")
	if err != nil {
		return err
	}
	defer os.Remove(out.Name())
	if _, err := io.Copy(out, src); err != nil {
		out.Close()
		return err
	}
	if err := out.Chmod(0o755); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Rename(out.Name(), dst)
}

// installError says what could not be installed, and what to do when it
// is a matter of permission.
func installError(path string, err error) error {
	if errors.Is(err, fs.ErrPermission) {
		return fmt.Errorf("install %s: %w (run it as root, or give --bin-dir and --helper-dir you may write to)", path, err)
	}
	return fmt.Errorf("install %s: %w", path, err)
}
