// Command cairn formats, mounts, inspects and benchmarks cairn volumes.
// Each subcommand lives in a file of its own and is a thin shell over a
// package: parse flags, open a volume, call the package.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// command is one subcommand: its usage line, a one-line summary, and run,
// which gets the arguments after the subcommand's name.
type command struct {
	usage   string
	summary string
	run     func(args []string) error
}

func commands() map[string]command {
	return map[string]command{
		"format":   formatCommand(),
		"config":   configCommand(),
		"destroy":  destroyCommand(),
		"fsck":     fsckCommand(),
		"gc":       gcCommand(),
		"compact":  compactCommand(),
		"info":     infoCommand(),
		"summary":  summaryCommand(),
		"warmup":   warmupCommand(),
		"restore":  restoreCommand(),
		"rmr":      rmrCommand(),
		"mount":    mountCommand(),
		"umount":   umountCommand(),
		"status":   statusCommand(),
		"stats":    statsCommand(),
		"profile":  profileCommand(),
		"version":  versionCommand(),
		"bench":    benchCommand(),
		"mdtest":   mdtestCommand(),
		"objbench": objbenchCommand(),
		"dump":     dumpCommand(),
		"load":     loadCommand(),
	}
}

func main() {
	if filepath.Base(os.Args[0]) == helperName {
		os.Exit(runMountHelper(os.Args[1:], os.Stderr))
	}
	os.Exit(run(os.Args[1:], os.Stderr))
}

func run(args []string, stderr io.Writer) int {
	cmds := commands()
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		printUsage(stderr, cmds)
		if len(args) == 0 {
			return 1
		}
		return 0
	}
	c, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "cairn: unknown command %q (run 'cairn help' for the list)\n", args[0])
		return 1
	}
	if err := c.run(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "cairn %s: %s\n", args[0], oneLine(err.Error()))
		return 1
	}
	return 0
}

func printUsage(w io.Writer, cmds map[string]command) {
	fmt.Fprintln(w, "cairn: a distributed POSIX file system")
	fmt.Fprintln(w, "\nCommands:")
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-52s %s\n", cmds[n].usage, cmds[n].summary)
	}
}

// oneLine folds an error message onto one line, as every user-facing
// failure must be.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// parseArgs parses flags that may stand before, between or after the
// positional arguments (cairn mount URL DIR -d), and checks that exactly
// want positionals were given (want < 0: any number).
func parseArgs(fs *flag.FlagSet, args []string, want int) ([]string, error) {
	fs.SetOutput(io.Discard)
	var pos []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.SetOutput(os.Stderr)
				fs.PrintDefaults()
			}
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		if args[0] == "--" {
			pos = append(pos, args[1:]...)
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	if want >= 0 && len(pos) != want {
		return nil, fmt.Errorf("expected %d argument(s), got %d (see 'cairn %s -h')", want, len(pos), fs.Name())
	}
	return pos, nil
}
