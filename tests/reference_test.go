package tests

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// helpFlagLine is a flag in the Flags: part of 'cairn CMD --help':
// "  -d, --background" or "      --cache-dir string".
var helpFlagLine = regexp.MustCompile(`^\s+(?:-[a-zA-Z], )?--([a-z0-9-]+)`)

// commandHelp is what 'cairn CMD --help' says of one command.
type commandHelp struct {
	name        string   // "mount", "bench engines"
	usage       string   // "cairn mount META-URL MOUNTPOINT [flags]"
	flags       []string // its own flags, without --help and the global ones
	subcommands []string
}

// readHelp runs 'cairn NAME… --help' and reads its usage line, flags and
// subcommands.
func readHelp(t *testing.T, name ...string) commandHelp {
	t.Helper()
	r := runCairn(t, append(name, "--help")...)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("cairn %s --help: exit %d, stderr %q", strings.Join(name, " "), r.code, r.stderr)
	}
	h := commandHelp{name: strings.Join(name, " ")}
	part := ""
	for _, line := range strings.Split(r.stdout, "\n") {
		if strings.HasSuffix(line, ":") && !strings.HasPrefix(line, " ") {
			part = line
			continue
		}
		switch part {
		case "Usage:":
			if u := strings.TrimSpace(line); u != "" && h.usage == "" {
				h.usage = u
			}
		case "Flags:":
			if m := helpFlagLine.FindStringSubmatch(line); m != nil && m[1] != "help" {
				h.flags = append(h.flags, m[1])
			}
		case "Available Commands:":
			if f := strings.Fields(line); len(f) > 0 {
				h.subcommands = append(h.subcommands, f[0])
			}
		}
	}
	if h.usage == "" {
		t.Errorf("cairn %s --help has no usage line:\n%s", h.name, r.stdout)
	}
	return h
}

// readmeSections cuts the README's command reference into its ###
// sections, heading first.
func readmeSections(t *testing.T) []string {
	raw, err := os.ReadFile("../README.md")
	must(t, err, "read the README")
	readme := string(raw)
	start := strings.Index(readme, "\n## Command reference\n")
	if start < 0 {
		t.Fatal("the README has no ## Command reference")
	}
	reference := readme[start+1:]
	if end := strings.Index(reference[3:], "\n## "); end >= 0 {
		reference = reference[:end+3]
	}
	return strings.Split(reference, "\n### ")[1:]
}

// TestReadmeReference: every command's --help has a usage line and the
// README's command reference a section headed with it, which names every
// flag the help lists; every flag a section's tables list is a flag of
// one of the section's commands.
func TestReadmeReference(t *testing.T) {
	sections := readmeSections(t)
	var all []commandHelp
	for _, name := range readHelp(t).subcommands {
		if name == "help" || name == "completion" { // cobra's own, documented in prose
			continue
		}
		h := readHelp(t, name)
		all = append(all, h)
		for _, sub := range h.subcommands {
			if sub != "help" {
				all = append(all, readHelp(t, name, sub))
			}
		}
	}
	if len(all) < 20 {
		t.Fatalf("cairn --help lists %d commands, want them all", len(all))
	}
	owners := map[int][]commandHelp{} // section index -> its commands
	for _, h := range all {
		i := slices.IndexFunc(sections, func(s string) bool {
			heading, _, _ := strings.Cut(s, "\n")
			return strings.Contains(heading, "`"+h.usage+"`")
		})
		if i < 0 {
			t.Errorf("the README's command reference has no heading with `%s`", h.usage)
			continue
		}
		owners[i] = append(owners[i], h)
		for _, f := range h.flags {
			if !regexp.MustCompile(`--` + regexp.QuoteMeta(f) + `([^a-z0-9-]|$)`).MatchString(sections[i]) {
				t.Errorf("the README's section on `%s` does not list --%s", h.usage, f)
			}
		}
	}
	tableFlag := regexp.MustCompile("`--([a-z0-9-]+)")
	for i, hs := range owners {
		for _, line := range strings.Split(sections[i], "\n") {
			if !strings.HasPrefix(line, "| `-") {
				continue
			}
			cell, _, _ := strings.Cut(line[2:], " | ")
			for _, m := range tableFlag.FindAllStringSubmatch(cell, -1) {
				if !slices.ContainsFunc(hs, func(h commandHelp) bool { return slices.Contains(h.flags, m[1]) }) {
					t.Errorf("the README lists --%s under `%s`, which has no such flag", m[1], hs[0].usage)
				}
			}
		}
	}
}
