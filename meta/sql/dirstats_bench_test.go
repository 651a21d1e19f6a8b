package sql

import (
	"path/filepath"
	"testing"

	"cairn/internal/testenv"
	"cairn/meta"
	"cairn/meta/metatest"
)

// BenchmarkDirStats: create, write and unlink with and without directory
// statistics (metatest.BenchDirStats), on SQLite, PostgreSQL and MariaDB.
func BenchmarkDirStats(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) {
		metatest.BenchDirStats(b, func(b *testing.B) meta.Engine {
			e, err := Open("sqlite3://" + filepath.Join(b.TempDir(), "vol.db"))
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { e.Close() })
			return e
		})
	})
	b.Run("postgres", func(b *testing.B) {
		p := startPostgres(b)
		metatest.BenchDirStats(b, func(b *testing.B) meta.Engine { return p.engine(b) })
	})
	b.Run("mariadb", func(b *testing.B) {
		m := &mariaEnv{srv: testenv.MariaDB(b)}
		metatest.BenchDirStats(b, func(b *testing.B) meta.Engine { return m.engine(b) })
	})
}
