package sql

import (
	"testing"

	"cairn/meta/metatest"
)

func TestSQLiteDump(t *testing.T) { metatest.RunDump(t, openSQLiteEngine) }

func TestPostgresDump(t *testing.T) {
	open, _ := postgresOpener(t)
	metatest.RunDump(t, open)
}

func TestMariaDBDump(t *testing.T) {
	open, _ := mariadbOpener(t)
	metatest.RunDump(t, open)
}
