package tests

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeReference: the README's command reference has a heading with
// the usage line 'cairn help' prints, and names every flag 'cairn CMD -h'
// lists, for the commands listed here (add a command when its section is
// written).
func TestReadmeReference(t *testing.T) {
	raw, err := os.ReadFile("../README.md")
	must(t, err, "read the README")
	readme := string(raw)
	help := runCairn(t, "help")
	flagLine := regexp.MustCompile(`(?m)^  -([a-z0-9-]+)`)
	for _, name := range []string{"fsck", "gc", "compact"} {
		usage := ""
		for _, line := range strings.Split(help.stderr+help.stdout, "\n") {
			if f := strings.Fields(line); len(f) > 0 && f[0] == name {
				// The usage ends where two spaces start the summary.
				usage = strings.TrimSpace(strings.SplitN(strings.TrimSpace(line), "  ", 2)[0])
			}
		}
		if usage == "" {
			t.Errorf("'cairn help' does not list %s", name)
			continue
		}
		if !strings.Contains(readme, "### `cairn "+usage+"`") {
			t.Errorf("the README has no heading ### `cairn %s`", usage)
		}
		r := runCairn(t, name, "-h")
		for _, m := range flagLine.FindAllStringSubmatch(r.stderr+r.stdout, -1) {
			if !strings.Contains(readme, "--"+m[1]) {
				t.Errorf("the README does not mention %s --%s", name, m[1])
			}
		}
	}
}
