package sql

import (
	"testing"

	"cairn/meta"
)

// reopen opens a second engine on e's database, as a second machine
// would.
func reopen(t *testing.T, e meta.Engine) meta.Engine {
	t.Helper()
	other, err := Open(e.(*Engine).source)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	return other
}
