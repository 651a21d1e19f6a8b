package control

import (
	"fmt"
	"sync"

	"cairn/meta"
	"cairn/vfs"
)

// compact merges the slices of the files at or under Path with the
// mount's own compaction, then removes the merged slices' blocks. It
// changes no file's content, so reading Path is all the caller needs.
func (c *call) compact() (any, error) {
	if err := c.writable(); err != nil {
		return nil, err
	}
	shown := c.shown()
	at, err := c.resolveShown(c.req.Path, shown)
	if err != nil {
		return nil, err
	}
	if err := meta.Access(&at.attr, c.cred, meta.MayRead); err != nil {
		return nil, fmt.Errorf("compact %s: %w", shown, err)
	}
	var mu sync.Mutex
	var latest vfs.CompactStats
	c.watch(func() any {
		mu.Lock()
		defer mu.Unlock()
		return latest
	})
	st, err := c.v.CompactTree(c.ctx, at.ino, 2, func(s vfs.CompactStats) {
		mu.Lock()
		latest = s
		mu.Unlock()
	})
	if err == nil {
		// The merged slices' blocks go now, not at the next pass of the
		// mount's collector.
		_, err = c.v.CollectGarbage(c.ctx)
	}
	if err != nil {
		return nil, fmt.Errorf("compact %s: %w", shown, err)
	}
	return st, nil
}
