package control

import (
	"context"
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

// summary counts the tree at Path, reading every directory as the caller,
// who must be able to list each (read and search), as du would.
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
	var eng meta.Engine = listing{Engine: c.v.Client().Engine(), cred: c.cred}
	if c.cred.Uid == 0 {
		eng = c.v.Client().Engine() // root may list every directory
	}
	s, err := inspect.Summarize(c.ctx, eng, at.ino, max(c.req.Top, 0), max(c.req.Threads, 1), func(s inspect.Summary) {
		mu.Lock()
		latest = s
		mu.Unlock()
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", shown, err)
	}
	return s, nil
}

// listing is an engine read by a caller who must be allowed to list
// every directory it reads.
type listing struct {
	meta.Engine
	cred meta.Cred
}

func (l listing) Readdir(ctx context.Context, dir meta.Ino, after string, limit int, plus bool) ([]meta.Entry, error) {
	a, err := l.Engine.GetAttr(ctx, dir)
	if err != nil {
		return nil, err
	}
	if err := meta.Access(&a, l.cred, meta.MayRead|meta.MayExec); err != nil {
		return nil, err
	}
	return l.Engine.Readdir(ctx, dir, after, limit, plus)
}
