package main

import "github.com/spf13/pflag"

// threadsFlag defines --threads (-p), the one name every command uses for
// how many things it does at once. --workers, its old name on some
// commands, still works, hidden and with a deprecation note.
func threadsFlag(fs *pflag.FlagSet, value *int, def int, usage string) {
	fs.IntVarP(value, "threads", "p", def, usage)
	fs.IntVar(value, "workers", def, usage)
	fs.MarkDeprecated("workers", "use --threads")
}
