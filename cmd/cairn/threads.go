package main

import "github.com/spf13/pflag"

// threadsFlag defines --threads (-p), the one name every command uses for
// how many things it does at once. --workers, its old name on some
// commands, still works (see oldName).
func threadsFlag(fs *pflag.FlagSet, value *int, def int, usage string) {
	fs.IntVarP(value, "threads", "p", def, usage)
	oldName(fs, "workers", "threads")
}

// oldName keeps old, a flag's former name, working as an alias of the
// flag now called name: hidden from help, with a deprecation note on
// stderr when used.
func oldName(fs *pflag.FlagSet, old, name string) {
	f := fs.Lookup(name)
	fs.Var(f.Value, old, f.Usage)
	fs.MarkDeprecated(old, "use --"+name)
}
