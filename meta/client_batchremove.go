package meta

import (
	"context"
	"errors"
	"fmt"
)

// removeEntries removes the non-directory entries es of directory dir
// with the engine's BatchRemover, up to BatchRemoveLimit names per call,
// and returns how many it removed. An inode this client holds open goes
// through unlink instead, so that it stays usable until closed; names
// removed meanwhile are skipped.
func (c *Client) removeEntries(ctx context.Context, remover BatchRemover, cred Cred, dir Ino, es []Entry) (int, error) {
	names := make([]string, 0, len(es))
	inos := make(map[string]Ino, len(es))
	var held []Entry
	c.mu.Lock()
	for _, e := range es {
		if c.open[e.Ino] != nil {
			held = append(held, e)
			continue
		}
		names = append(names, e.Name)
		inos[e.Name] = e.Ino
	}
	c.mu.Unlock()
	removed := 0
	for _, e := range held {
		if _, _, err := c.unlink(ctx, cred, dir, e.Name); err != nil && !errors.Is(err, ErrNotFound) {
			return removed, fmt.Errorf("remove %q in directory %d: %w", e.Name, dir, err)
		}
		removed++
	}
	for len(names) > 0 {
		batch := names[:min(len(names), BatchRemoveLimit)]
		names = names[len(batch):]
		space := c.cachedSpace(batch, inos)
		start := now()
		c.attrs.beginChange(dir)
		r, err := remover.RemoveEntries(ctx, cred, dir, batch, c.Session())
		c.observe("remove_entries", start)
		c.attrs.endChange(dir, nil)
		for _, name := range batch {
			c.nameUnsure(dir, name)
			c.attrs.drop(inos[name])
		}
		if err != nil {
			return removed, err
		}
		c.invalidateUsage()
		c.countRemoved(dir, space, len(batch), r.Removed)
		removed += r.Removed
		for _, ino := range r.Orphans {
			if err := c.releaseOrphan(ctx, c.Session(), ino); err != nil {
				return removed, err
			}
		}
	}
	return removed, nil
}
