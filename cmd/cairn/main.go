// Command cairn formats, mounts, inspects and benchmarks cairn volumes.
// Each subcommand lives in a file of its own and is a thin shell over a
// package: declare its flags, open a volume, call the package. The
// commands are cobra commands; this file ties them under the root.
package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

func main() {
	if filepath.Base(os.Args[0]) == helperName {
		os.Exit(runMountHelper(os.Args[1:], os.Stderr))
	}
	os.Exit(run(os.Args[1:], os.Stderr))
}

// subcommands are every command of cairn, in the order 'cairn help' lists
// them.
func subcommands() []*cobra.Command {
	return []*cobra.Command{
		formatCommand(),
		configCommand(),
		statusCommand(),
		mountCommand(),
		umountCommand(),
		installCommand(),
		statsCommand(),
		profileCommand(),
		infoCommand(),
		summaryCommand(),
		warmupCommand(),
		restoreCommand(),
		rmrCommand(),
		cloneCommand(),
		quotaCommand(),
		fsckCommand(),
		gcCommand(),
		compactCommand(),
		dumpCommand(),
		loadCommand(),
		migrateCommand(),
		destroyCommand(),
		benchCommand(),
		mdtestCommand(),
		objbenchCommand(),
		versionCommand(),
	}
}

// newRootCommand is 'cairn' with every subcommand under it, the flags all
// of them take (logging) and the help, version and completion cobra adds.
func newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "cairn",
		Short: "cairn: a distributed POSIX file system",
		Long: "cairn: a distributed POSIX file system. Files are cut into blocks kept in an object store\n" +
			"(a directory or S3); their metadata lives in a database (SQLite, Redis, PostgreSQL, MySQL,\n" +
			"etcd, TiKV or Badger) that every client shares.\n\n" +
			environmentHelp,
		Example:           "  cairn format sqlite3:///var/lib/cairn/vol.db vol\n  cairn mount sqlite3:///var/lib/cairn/vol.db /mnt/vol -d\n  cairn help mount",
		Version:           versionString(),
		SilenceUsage:      true,
		SilenceErrors:     true,
		CompletionOptions: cobra.CompletionOptions{HiddenDefaultCmd: false},
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.Flags().BoolP("version", "V", false, "print the version of this build")
	logging.register(root.PersistentFlags())
	root.PersistentPreRunE = func(c *cobra.Command, _ []string) error {
		if err := logging.install(os.Stderr); err != nil {
			return err
		}
		// Not the arguments: a URL may hold a password.
		slog.Debug("start", "command", c.CommandPath(), "version", versionString(), "pid", os.Getpid())
		return nil
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return fmt.Errorf("%w (see 'cairn %s --help')", err, commandName(c))
	})
	root.SetHelpCommand(helpCommand())
	root.AddCommand(subcommands()...)
	finishHelp(root)
	completeChoices(root)
	return root
}

// run executes cairn with args (without the program name) and returns its
// exit status; failures are one line on stderr, never a usage dump.
func run(args []string, stderr io.Writer) int {
	root := newRootCommand()
	root.SetArgs(args)
	root.SetErr(stderr)
	c, err := root.ExecuteC()
	if err != nil {
		prefix := "cairn"
		if c != nil && c.HasParent() {
			prefix += " " + commandName(c)
		}
		msg := oneLine(err.Error())
		if !c.HasParent() && strings.HasPrefix(msg, "unknown command") {
			msg += " (run 'cairn --help' for the list)"
		}
		fmt.Fprintf(stderr, "%s: %s\n", prefix, msg)
		return 1
	}
	return 0
}

// commandName is c's path below the root ("mount", "bench engines"), or
// "cairn" alone for the root itself.
func commandName(c *cobra.Command) string {
	if c == nil || !c.HasParent() {
		return "cairn"
	}
	return strings.TrimPrefix(c.CommandPath(), "cairn ")
}

// oneLine folds an error message onto one line, as every user-facing
// failure must be.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
