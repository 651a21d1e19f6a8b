package sql

import (
	"testing"

	"cairn/meta/metatest"
)

func TestPostgresConformance(t *testing.T) {
	open, _ := postgresOpener(t)
	metatest.Run(t, open)
}

func TestPostgresConcurrency(t *testing.T) {
	open, _ := postgresOpener(t)
	metatest.RunConcurrency(t, open, reopen)
	t.Run("UsageRows", func(t *testing.T) { testUsageRows(t, open(t).(*Engine)) })
}
