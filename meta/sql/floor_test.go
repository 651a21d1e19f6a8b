package sql

import (
	"path/filepath"
	"strconv"
	"testing"

	"cairn/meta"
	"cairn/meta/metatest"
)

// scratchRow reads the floor probes' row straight from the database.
func scratchRow(t *testing.T, e meta.Engine) string {
	var v int64
	s := e.(*Engine)
	if err := s.db.QueryRowContext(t.Context(), "SELECT v FROM "+floorTable+" WHERE id = 1").Scan(&v); err != nil {
		t.Fatalf("read the scratch row: %v", err)
	}
	return strconv.FormatInt(v, 10)
}

func TestFloorProbes(t *testing.T) {
	t.Run("SQLite", func(t *testing.T) {
		metatest.RunFloor(t, func(t *testing.T) meta.Engine {
			e, err := Open("sqlite3://" + filepath.Join(t.TempDir(), "vol.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { e.Close() })
			return e
		}, scratchRow)
	})
	t.Run("PostgreSQL", func(t *testing.T) {
		open, _ := postgresOpener(t)
		metatest.RunFloor(t, open, scratchRow)
	})
	t.Run("MariaDB", func(t *testing.T) {
		open, _ := mariadbOpener(t)
		metatest.RunFloor(t, open, scratchRow)
	})
}
