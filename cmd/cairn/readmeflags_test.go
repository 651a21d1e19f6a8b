package main

import (
	"flag"
	"os"
	"strings"
	"testing"
)

// TestReadmeListsFlags: every flag of these commands is in the README's
// command reference.
func TestReadmeListsFlags(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	sets := map[string]*flag.FlagSet{
		"mount":   newMountFlagSet(&mountFlags{}),
		"profile": newProfileFlagSet(&profileFlags{}),
	}
	for cmd, fs := range sets {
		fs.VisitAll(func(f *flag.Flag) {
			dashes := "--"
			if len(f.Name) == 1 {
				dashes = "-"
			}
			if !strings.Contains(string(readme), "`"+dashes+f.Name) {
				t.Errorf("the README does not list %s%s of cairn %s", dashes, f.Name, cmd)
			}
		})
	}
}
