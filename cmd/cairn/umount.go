package main

import (
	"bytes"
	"flag"
	"fmt"
	"os/exec"
	"strings"
)

func umountCommand() command {
	return command{
		usage:   "umount MOUNTPOINT [--force]",
		summary: "unmount a volume (--force: detach even when busy)",
		run:     runUmount,
	}
}

func runUmount(args []string) error {
	fs := flag.NewFlagSet("umount", flag.ContinueOnError)
	force := fs.Bool("force", false, "detach the mount even while files are open (lazy unmount)")
	pos, err := parseArgs(fs, args, 1)
	if err != nil {
		return err
	}
	mountpoint, err := checkMountpoint(pos[0])
	if err != nil {
		return err
	}
	tool, err := exec.LookPath("fusermount3")
	if err != nil {
		if tool, err = exec.LookPath("fusermount"); err != nil {
			return fmt.Errorf("fusermount3 is not installed (apt-get install fuse3)")
		}
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
	return nil
}
