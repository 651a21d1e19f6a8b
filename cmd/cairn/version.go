package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// release is the version of this cairn build. Volumes record
// meta.FormatVersion separately; this one names the program.
const release = "0.1.0-dev"

// versionString names this build: release, commit when the binary was built
// from a git checkout, Go version and platform.
func versionString() string {
	commit, dirty := "", false
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	if len(commit) > 12 {
		commit = commit[:12]
	}
	if commit != "" && dirty {
		commit += "+dirty"
	}
	v := "cairn " + release
	if commit != "" {
		v += " (" + commit + ")"
	}
	return fmt.Sprintf("%s %s %s/%s", v, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "print the version of this build (also: cairn --version, cairn -V)",
		Example: "  cairn version",
		Args:    exactArgs(0),
		RunE: func(*cobra.Command, []string) error {
			fmt.Fprintln(os.Stdout, versionString())
			return nil
		},
	}
}
