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

// argsBetween accepts from min to max positional arguments.
func argsBetween(min, max int) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) >= min && len(args) <= max {
			return nil
		}
		want := fmt.Sprintf("%d to %d arguments", min, max)
		if min == max {
			want = fmt.Sprintf("%d argument(s)", min)
		}
		return fmt.Errorf("expected %s, got %d (usage: %s; see 'cairn %s --help')", want, len(args), c.UseLine(), commandName(c))
	}
}
