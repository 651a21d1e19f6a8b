package sql

import (
	"testing"

	"cairn/meta"
	"cairn/meta/metatest"
)

func openSQLiteEngine(t *testing.T) meta.Engine { return openSQLite(t) }

func TestSQLiteConformance(t *testing.T) { metatest.Run(t, openSQLiteEngine) }

func TestSQLiteConcurrency(t *testing.T) {
	metatest.RunConcurrency(t, openSQLiteEngine, reopen)
}
