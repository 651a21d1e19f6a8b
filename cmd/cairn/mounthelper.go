package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// helperName is the name under which cairn acts as mount(8)'s helper for
// file systems of type cairn: installed as /sbin/mount.cairn (a symlink
// to cairn), it lets 'mount -t cairn META-URL DIR -o key=value,...' and
// /etc/fstab lines of type cairn mount a volume.
const helperName = "mount.cairn"

// Exit statuses of a mount helper, as mount(8) documents them.
const (
	helperUsage   = 1
	helperFailure = 32
)

// mountOnlyOptions are options of mount(8), systemd and fstab
// themselves; the helper accepts and ignores them.
var mountOnlyOptions = map[string]bool{
	"defaults": true, "_netdev": true, "auto": true, "noauto": true, "nofail": true,
	"user": true, "nouser": true, "users": true, "owner": true, "group": true, "rw": true,
}

// runMountHelper is cairn run as mount.cairn. mount(8) calls it as
//
//	mount.cairn SPEC DIR [-sfnv] [-N NAMESPACE] [-o OPTIONS] [-t TYPE]
//
// and expects it to return once the file system is mounted: it runs
// 'cairn mount SPEC DIR -d' with the options as flags.
func runMountHelper(args []string, stderr io.Writer) int {
	mountArgs, fake, err := helperMountArgs(args, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %s\n", helperName, oneLine(err.Error()))
		return helperUsage
	}
	if fake {
		fmt.Fprintf(stderr, "%s: would run: cairn %s\n", helperName, strings.Join(mountArgs, " "))
		return 0
	}
	root := newRootCommand()
	root.SetArgs(mountArgs)
	root.SetErr(stderr)
	if _, err := root.ExecuteC(); err != nil {
		fmt.Fprintf(stderr, "%s: %s\n", helperName, oneLine(err.Error()))
		if errors.Is(err, errBadOption) {
			return helperUsage
		}
		return helperFailure
	}
	return 0
}

var errBadOption = errors.New("bad mount option")

// helperMountArgs turns mount(8)'s arguments into those of 'cairn mount';
// fake is mount's -f (say what would be done, do nothing).
func helperMountArgs(args []string, stderr io.Writer) (mountArgs []string, fake bool, err error) {
	var pos, options []string
	sloppy, verbose := false, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if len(a) < 2 || a[0] != '-' {
			pos = append(pos, a)
			continue
		}
		switch a {
		case "-o", "-t", "-N":
			if i+1 == len(args) {
				return nil, false, fmt.Errorf("%s needs a value", a)
			}
			i++
			switch a {
			case "-o":
				options = append(options, args[i])
			case "-N":
				return nil, false, fmt.Errorf("-N (mount in another namespace) is not supported")
			}
			continue
		}
		for _, c := range a[1:] {
			switch c {
			case 's':
				sloppy = true
			case 'f':
				fake = true
			case 'n': // no mtab to write: there is none
			case 'v':
				verbose = true
			default:
				return nil, false, fmt.Errorf("unknown flag -%c (usage: %s META-URL MOUNTPOINT [-sfnv] [-o OPTIONS])", c, helperName)
			}
		}
	}
	if len(pos) != 2 {
		return nil, false, fmt.Errorf("want META-URL and MOUNTPOINT, got %d argument(s) (usage: %s META-URL MOUNTPOINT [-sfnv] [-o OPTIONS])", len(pos), helperName)
	}
	flags, err := optionFlags(strings.Join(options, ","), sloppy, stderr)
	if err != nil {
		return nil, false, err
	}
	mountArgs = append([]string{"mount", pos[0], pos[1], "-d"}, flags...)
	if verbose {
		fmt.Fprintf(stderr, "%s: cairn %s\n", helperName, strings.Join(mountArgs, " "))
	}
	return mountArgs, fake, nil
}

// optionFlags turns comma-separated mount options into flags of cairn
// mount: KEY=VALUE is --KEY=VALUE, a flag that is on or off alone is
// --KEY, ro is --read-only, and the kernel's options go through -o. An
// option that is none of these is an error, or with sloppy a warning.
func optionFlags(options string, sloppy bool, stderr io.Writer) ([]string, error) {
	var known mountFlags
	fs := newMountFlagSet(&known)
	var flags, kernel []string
	for _, opt := range strings.Split(options, ",") {
		key, value, hasValue := strings.Cut(opt, "=")
		switch {
		case opt == "" || mountOnlyOptions[opt] || strings.HasPrefix(opt, "x-") || strings.HasPrefix(opt, "comment="):
			continue
		case opt == "ro":
			flags = append(flags, "--read-only")
			continue
		case kernelOptions[opt]:
			kernel = append(kernel, opt)
			continue
		}
		f := fs.Lookup(key)
		if f == nil || fstabSkipped[key] || key == "options" {
			if sloppy {
				fmt.Fprintf(stderr, "%s: ignoring unknown option %q\n", helperName, opt)
				continue
			}
			return nil, fmt.Errorf("%w %q (the options are cairn mount's flags without dashes, e.g. cache-size=10G, and allow_other, ro, _netdev; see 'cairn mount -h')", errBadOption, opt)
		}
		switch {
		case hasValue:
			if err := fs.Set(key, value); err != nil {
				return nil, fmt.Errorf("%w %q: %v", errBadOption, opt, err)
			}
			flags = append(flags, "--"+key+"="+value)
		case f.Value.Type() == "bool":
			flags = append(flags, "--"+key)
		default:
			return nil, fmt.Errorf("%w %q: it needs a value (%s=VALUE)", errBadOption, opt, key)
		}
	}
	if len(kernel) > 0 {
		flags = append(flags, "-o", strings.Join(kernel, ","))
	}
	return flags, nil
}
