package sql

import (
	"path/filepath"
	"testing"

	"cairn/meta"
	"cairn/meta/metatest"
)

func TestScratchSQLiteConformance(t *testing.T) {
	metatest.Run(t, func(t *testing.T) meta.Engine { return openSQLite(t) })
}

func TestScratchSQLiteConcurrency(t *testing.T) {
	path := filepath.Join(t.TempDir(), "race.db")
	metatest.RunConcurrency(t, func(t *testing.T) meta.Engine {
		e, err := OpenSQLite("sqlite3://" + path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		return e
	}, func(t *testing.T, _ meta.Engine) meta.Engine {
		e, err := OpenSQLite("sqlite3://" + path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		return e
	})
}
