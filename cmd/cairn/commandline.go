package main

import "github.com/spf13/pflag"

// commandLine writes the flags given in fs and the positional arguments
// pos back as arguments, for a child process that runs the same command
// (a mount going to the background).
func commandLine(fs *pflag.FlagSet, pos []string) []string {
	var args []string
	visitGiven(fs, func(f *pflag.Flag) {
		if list, ok := f.Value.(*stringList); ok {
			for _, v := range *list {
				args = append(args, "--"+f.Name+"="+v)
			}
			return
		}
		args = append(args, "--"+f.Name+"="+f.Value.String())
	})
	args = append(args, "--")
	return append(args, pos...)
}

// visitGiven calls fn for each flag of fs given on the command line, in
// name order. Unlike fs.Visit it also sees flags that were set through
// another set holding the same flags (cobra parses a command's merged
// set, not the sets its flags were defined in).
func visitGiven(fs *pflag.FlagSet, fn func(*pflag.Flag)) {
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Changed {
			fn(f)
		}
	})
}
