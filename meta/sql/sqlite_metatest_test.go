package sql

import (
	"testing"

	"cairn/meta"
	"cairn/meta/metatest"
)

func openSQLiteEngine(t *testing.T) meta.Engine { return openSQLite(t) }

// reopenSQLite opens a second engine on e's file, as a second mount would.
func reopenSQLite(t *testing.T, e meta.Engine) meta.Engine {
	t.Helper()
	other, err := OpenSQLite("sqlite3://" + e.(*Engine).file)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	return other
}

func TestSQLiteConformance(t *testing.T) { metatest.Run(t, openSQLiteEngine) }

func TestSQLiteConcurrency(t *testing.T) {
	metatest.RunConcurrency(t, openSQLiteEngine, reopenSQLite)
}
