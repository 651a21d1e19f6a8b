package control

import (
	"fmt"
	"sync"

	"cairn/inspect"
	"cairn/meta"
)

// info describes Path's inode: attributes, and a file's chunks, slices
// and objects. Reaching Path is all the caller needs, as for stat.
func (c *call) info() (any, error) {
	shown := c.shown()
	at, err := c.resolveShown(c.req.Path, shown)
	if err != nil {
		return nil, err
	}
	info, err := inspect.File(c.ctx, c.v.Client().Engine(), at.ino, int(c.v.Format().BlockSize))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", shown, err)
	}
	return info, nil
}

// summary tells what the tree at Path holds, from the directory
// statistics (after writing this mount's) or by counting, reading every
// directory as the caller, who must be able to list each (read and
// search), as du would.
func (c *call) summary() (any, error) {
	shown := c.shown()
	at, err := c.resolveShown(c.req.Path, shown)
	if err != nil {
		return nil, err
	}
	var mu sync.Mutex
	var latest inspect.Summary
	c.watch(func() any {
		mu.Lock()
		defer mu.Unlock()
		return latest
	})
	client := c.v.Client()
	if !c.req.Count {
		if err := client.FlushDirStats(c.ctx); err != nil {
			return nil, fmt.Errorf("%s: %w", shown, err)
		}
	}
	opt := inspect.SummaryOptions{Top: max(c.req.Top, 0), Workers: max(c.req.Threads, 1), Count: c.req.Count, Report: func(s inspect.Summary) {
		mu.Lock()
		latest = s
		mu.Unlock()
	}}
	if c.cred.Uid != 0 { // root may list every directory
		opt.Check = func(_ meta.Ino, a *meta.Attr) error { return meta.Access(a, c.cred, meta.MayRead|meta.MayExec) }
	}
	s, err := inspect.Summarize(c.ctx, client.Engine(), at.ino, opt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", shown, err)
	}
	return s, nil
}
