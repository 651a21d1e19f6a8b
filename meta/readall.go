package meta

import (
	"context"
	"errors"
)

// errTooMany is readAll's error for a directory that holds more entries
// than its caller asked for.
var errTooMany = errors.New("more entries than asked for")

// readAll lists every entry of directory dir, with their attributes when
// plus, or fails with errTooMany once it holds more than most (0: no
// bound), in pages of 1,000, or fewer: it reads at most most+1 entries.
func readAll(ctx context.Context, e Engine, dir Ino, most int, plus bool) ([]Entry, error) {
	var all []Entry
	after := ""
	for {
		page := 1000
		if most > 0 {
			page = min(page, most+1-len(all))
		}
		es, err := e.Readdir(ctx, dir, after, page, plus)
		if err != nil {
			return all, err
		}
		all = append(all, es...)
		if most > 0 && len(all) > most {
			return nil, errTooMany
		}
		if len(es) < page { // the end (Engine.Readdir)
			return all, nil
		}
		after = es[len(es)-1].Name
	}
}
