package sql

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

func TestRoutineStatements(t *testing.T) {
	file := func(text string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(text)} }
	one := "CREATE FUNCTION cairn_one(p BIGINT)\nRETURNS INT DETERMINISTIC NO SQL\nRETURN p\n"
	two := "CREATE PROCEDURE cairn_two()\nBEGIN\nEND\n"
	cases := []struct {
		name      string
		files     fstest.MapFS
		dropFirst bool
		want      []string
		err       string
	}{
		{name: "in the order given",
			files: fstest.MapFS{"routines/d/cairn_one.sql": file(one), "routines/d/cairn_two.sql": file(two)},
			want:  []string{strings.TrimSpace(two), strings.TrimSpace(one)}},
		{name: "each after a DROP of its kind", dropFirst: true,
			files: fstest.MapFS{"routines/d/cairn_one.sql": file(one), "routines/d/cairn_two.sql": file(two)},
			want: []string{"DROP PROCEDURE IF EXISTS cairn_two", strings.TrimSpace(two),
				"DROP FUNCTION IF EXISTS cairn_one", strings.TrimSpace(one)}},
		{name: "a file not in the order",
			files: fstest.MapFS{"routines/d/cairn_one.sql": file(one), "routines/d/cairn_two.sql": file(two),
				"routines/d/cairn_three.sql": file("CREATE FUNCTION cairn_three() RETURNS INT RETURN 3")},
			err: "routines/d/cairn_three.sql is not in the install order"},
		{name: "a routine without its file",
			files: fstest.MapFS{"routines/d/cairn_two.sql": file(two)},
			err:   "cairn_one.sql"},
		{name: "a file that creates another routine",
			files: fstest.MapFS{"routines/d/cairn_one.sql": file(two), "routines/d/cairn_two.sql": file(two)},
			err:   "routines/d/cairn_one.sql does not begin with the statement that creates cairn_one"},
		{name: "a file that begins with something else",
			files: fstest.MapFS{"routines/d/cairn_one.sql": file("-- note\n" + one), "routines/d/cairn_two.sql": file(two)},
			err:   "does not begin with the statement that creates cairn_one"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := routineStatements(c.files, "d", c.dropFirst, []string{"cairn_two", "cairn_one"})
			switch {
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Fatalf("error %v, want one saying %q", err, c.err)
			case c.err == "" && err != nil:
				t.Fatal(err)
			case !slices.Equal(got, c.want):
				t.Fatalf("statements %q, want %q", got, c.want)
			}
		})
	}
}
