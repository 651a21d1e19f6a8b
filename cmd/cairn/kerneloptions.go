package main

import "fmt"

// kernelOptions are the -o options of 'cairn mount' (and of mount.cairn)
// that go to the kernel: FUSE's own, and the generic mount flags that
// fusermount3 lets through (it refuses relatime, nodiratime, lazytime and
// strictatime, each tried). Options FUSE's library sets itself (fsname,
// subtype, max_read) are not among them; cairn's own settings are flags.
var kernelOptions = map[string]bool{
	"allow_other": true, "default_permissions": true, "writeback_cache": true,
	"ro": true, "rw": true,
	"nosuid": true, "suid": true, "nodev": true, "dev": true, "noexec": true, "exec": true,
	"atime": true, "noatime": true, "sync": true, "async": true, "dirsync": true,
}

// checkKernelOption refuses a -o option the kernel would not take (or
// fusermount would fail on without saying which), in one line that says
// what -o is for.
func checkKernelOption(opt string) error {
	if kernelOptions[opt] {
		return nil
	}
	return fmt.Errorf("unknown -o option %q: -o takes the kernel's mount options (allow_other, default_permissions, writeback_cache, ro, nosuid, nodev, noexec, noatime, ...); cairn's own settings are flags such as --cache-size", opt)
}
