package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

func umountCommand() *cobra.Command {
	c := &cobra.Command{
		Use:     "umount MOUNTPOINT",
		Short:   "unmount a volume (--force: detach even when busy)",
		Example: "  cairn umount /mnt/vol\n  cairn umount /mnt/vol --force",
		Args:    exactArgs(1),
	}
	fs := c.Flags()
	force := fs.Bool("force", false, "detach the mount even while files are open (lazy unmount)")
	c.RunE = func(_ *cobra.Command, pos []string) error {
		// A mount whose process died fails stat (ENOTCONN), so the mount
		// table decides, not the directory.
		mountpoint, err := filepath.Abs(pos[0])
		if err != nil {
			return fmt.Errorf("mountpoint %q: %w", pos[0], err)
		}
		if mounted, err := isMounted(mountpoint); err == nil && !mounted {
			if _, serr := os.Stat(mountpoint); serr != nil {
				return fmt.Errorf("%s does not exist", mountpoint)
			}
			return fmt.Errorf("%s is not mounted", mountpoint)
		}
		tool, err := exec.LookPath("fusermount3")
		if err != nil {
			if tool, err = exec.LookPath("fusermount"); err != nil {
				return fmt.Errorf("fusermount3 is not installed (apt-get install fuse3)")
			}
		}
		pid := 0
		if !*force {
			pid = mountProcess(mountpoint)
		}
		argv := []string{"-u"}
		if *force {
			argv = append(argv, "-z")
		}
		var stderr bytes.Buffer
		cmd := exec.Command(tool, append(argv, mountpoint)...)
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			msg := strings.TrimSpace(stderr.String())
			if msg == "" {
				msg = err.Error()
			}
			if strings.Contains(msg, "busy") {
				return fmt.Errorf("%s is busy (close the files open there, or use --force): %s", mountpoint, msg)
			}
			return fmt.Errorf("unmount %s: %s", mountpoint, msg)
		}
		return waitForExit(pid, mountpoint, 10*time.Minute)
	}
	return c
}

// isMounted reports whether dir is a mount point, from /proc/self/mountinfo
// (whose fifth field is the mount point, with spaces escaped as \040).
func isMounted(dir string) (bool, error) {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return false, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 5 {
			continue
		}
		if unescapeMount(fields[4]) == dir {
			return true, nil
		}
	}
	return false, nil
}

func unescapeMount(s string) string {
	r := strings.NewReplacer(`\040`, " ", `\011`, "\t", `\012`, "\n", `\134`, `\`)
	return r.Replace(s)
}
