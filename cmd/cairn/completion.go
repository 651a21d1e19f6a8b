package main

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// flagChoices are the values shell completion offers for flags that take
// one of a few words, whichever command they belong to.
var flagChoices = map[string][]string{
	"storage":      {"file", "s3", "mem"},
	"compress":     {"none", "lz4", "zstd"},
	"cache-writes": {"small", "all", "none"},
	"log-level":    {"debug", "info", "warn", "error"},
}

// completeChoices has the shell complete the flags of c in flagChoices
// with their words, for c and every command under it.
func completeChoices(c *cobra.Command) {
	c.LocalFlags().VisitAll(func(f *pflag.Flag) {
		if words, ok := flagChoices[f.Name]; ok {
			c.RegisterFlagCompletionFunc(f.Name, cobra.FixedCompletions(words, cobra.ShellCompDirectiveNoFileComp))
		}
	})
	for _, sub := range c.Commands() {
		completeChoices(sub)
	}
}
