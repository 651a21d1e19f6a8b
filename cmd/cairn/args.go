package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

// exactArgs accepts exactly n positional arguments, and says in one line
// what is wrong otherwise.
func exactArgs(n int) cobra.PositionalArgs {
	return argsBetween(n, n)
}

// argsBetween accepts from least to most positional arguments.
func argsBetween(least, most int) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) >= least && len(args) <= most {
			return nil
		}
		want := fmt.Sprintf("%d to %d arguments", least, most)
		if least == most {
			want = fmt.Sprintf("%d argument(s)", least)
		}
		return fmt.Errorf("expected %s, got %d (usage: %s; see 'cairn %s --help')", want, len(args), c.UseLine(), commandName(c))
	}
}
