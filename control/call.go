package control

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"strings"
	"time"

	"cairn/meta"
)

// call is one request being answered.
type call struct {
	*Server
	ctx  context.Context
	cred meta.Cred
	req  Request
	out  *replies

	stop chan struct{} // closed to stop the progress reports; nil: none
	done chan struct{}
}

func (c *call) run() (any, error) {
	switch c.req.Op {
	case OpRmr:
		return c.rmr()
	case OpRestore:
		return c.restore()
	case OpClone:
		return c.clone()
	case OpCompact:
		return c.compact()
	case OpInfo:
		return c.info()
	case OpSummary:
		return c.summary()
	case OpWarmup:
		return c.warmup()
	case OpFloor:
		return c.floor()
	case OpMigrate:
		return c.migrate()
	}
	return nil, fmt.Errorf("this mount does not know the request %q: use the cairn of the mount's release", c.req.Op)
}

// watch reports progress() to the command every progressEvery until the
// request ends.
func (c *call) watch(progress func() any) {
	c.stop, c.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(c.done)
		t := time.NewTicker(progressEvery)
		defer t.Stop()
		for {
			select {
			case <-c.stop:
				return
			case <-t.C:
			}
			if data, err := json.Marshal(progress()); err == nil {
				c.out.send(Reply{Progress: data})
			}
		}
	}()
}

func (c *call) stopWatching() {
	if c.stop != nil {
		close(c.stop)
		<-c.done
	}
}

// line sends a line for the command to print; warning says it is one.
func (c *call) line(warning bool, format string, args ...any) {
	c.out.send(Reply{Line: fmt.Sprintf(format, args...), Warning: warning})
}

// shown is how the caller named the request's path.
func (c *call) shown() string {
	if c.req.Shown != "" {
		return c.req.Shown
	}
	return c.req.Path
}

// place is where a path leads: the inode and the entry that names it
// (none for the mount's root).
type place struct {
	parent meta.Ino
	name   string
	ino    meta.Ino
	attr   meta.Attr
}

// resolve looks p up from the mount's root, name by name, as the caller:
// each directory on the way needs the caller's search permission, as a
// system call's path would. The last name is not followed if it is a
// symbolic link.
func (c *call) resolve(p string) (place, error) {
	at := place{ino: c.v.Root()}
	a, err := c.v.GetAttr(c.ctx, at.ino)
	if err != nil {
		return place{}, err
	}
	at.attr = a
	for _, name := range strings.Split(strings.Trim(path.Clean("/"+p), "/"), "/") {
		if name == "" {
			continue
		}
		if !at.attr.IsDir() {
			return place{}, meta.ErrNotDir
		}
		if err := meta.Access(&at.attr, c.cred, meta.MayExec); err != nil {
			return place{}, err
		}
		e, err := c.v.Lookup(c.ctx, c.cred, at.ino, name)
		if err != nil {
			return place{}, err
		}
		at = place{parent: at.ino, name: name, ino: e.Ino, attr: e.Attr}
	}
	return at, nil
}

// resolveShown is resolve with the caller's name for p in its errors.
func (c *call) resolveShown(p, shown string) (place, error) {
	at, err := c.resolve(p)
	if err != nil {
		return place{}, fmt.Errorf("%s: %w", shown, err)
	}
	return at, nil
}
