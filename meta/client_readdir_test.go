package meta_test

import (
	"fmt"
	"testing"

	"cairn/meta"
)

// TestReaddirHidesTrash: the root's listing leaves the trash out, and a
// page the trash was taken from is filled up again, so that only the last
// page is short (what the engines promise, and a mount relies on to stop
// without asking for an empty page).
func TestReaddirHidesTrash(t *testing.T) {
	c, _, _ := trashClients(t)
	// "-a" sorts before ".trash", the others after it.
	names := []string{"-a", "a", "b", "c"}
	for _, n := range append(names, "gone") {
		if _, _, err := c.Mknod(ctx, meta.RootCred, meta.RootIno, n, meta.TypeFile, 0o644, 0, ""); err != nil {
			t.Fatal(err)
		}
	}
	// The first unlink into the trash makes it.
	if _, _, err := c.Unlink(ctx, meta.RootCred, meta.RootIno, "gone"); err != nil {
		t.Fatal(err)
	}
	for _, limit := range []int{1, 2, 3, 4, 1000} {
		for _, plus := range []bool{false, true} {
			var got []string
			after := ""
			for {
				es, err := c.Readdir(ctx, meta.RootIno, after, limit, plus)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range es {
					got = append(got, e.Name)
				}
				if len(got) < len(names) && len(es) < limit {
					t.Errorf("limit %d, plus %v: a short page %d entries after %q, before the end", limit, plus, len(es), after)
				}
				if len(es) < limit {
					break
				}
				after = es[len(es)-1].Name
			}
			if fmt.Sprint(got) != fmt.Sprint(names) {
				t.Errorf("limit %d, plus %v: the root lists %q, want %q", limit, plus, got, names)
			}
		}
	}
}
