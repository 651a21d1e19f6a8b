package sql

import (
	"context"
	"fmt"
	"slices"

	"cairn/meta"
)

var _ meta.Destroyer = (*Engine)(nil)

// Destroy implements meta.Destroyer: it drops the server-side routines
// Init installed and the volume's tables, cairn_setting last. A database
// holds one volume, so nothing of another volume is touched; tables that
// are not cairn's stay.
func (e *Engine) Destroy(ctx context.Context) error {
	if e.missingFile() {
		return nil
	}
	c := &conn{ctx: ctx, e: e, q: e.db}
	drops := dropRoutines(e.d.functions)
	for _, t := range slices.Backward(tables) {
		if t.name != "cairn_setting" {
			drops = append(drops, "DROP TABLE IF EXISTS "+t.name)
		}
	}
	drops = append(drops, "DROP TABLE IF EXISTS cairn_setting")
	for _, stmt := range drops {
		if _, err := c.exec(stmt); err != nil {
			return fmt.Errorf("destroy the %s volume (%s): %w", e.d.name, stmt, e.explain(err))
		}
	}
	e.limits.Store(nil)
	return nil
}

// dropRoutines is the statements that drop the routines installs creates,
// in the reverse order, so that a routine goes before those it calls.
// The names alone are enough: cairn's routines are not overloaded.
func dropRoutines(installs []string) []string {
	var out []string
	for _, stmt := range slices.Backward(installs) {
		if m := routineHeader.FindStringSubmatch(stmt); m != nil {
			out = append(out, "DROP "+m[1]+" IF EXISTS "+m[2])
		}
	}
	return out
}
