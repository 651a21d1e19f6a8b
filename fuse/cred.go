package fuse

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	gofuse "github.com/hanwen/go-fuse/v2/fuse"

	"cairn/meta"
)

// groupCache remembers the supplementary groups of calling processes for a
// short while: FUSE tells only the caller's uid, gid and pid, and group
// membership decides chgrp, setgid and permission checks.
type groupCache struct {
	mu sync.Mutex
	m  map[uint32]cachedGroups
}

type cachedGroups struct {
	gids    []uint32
	expires time.Time
}

func (c *groupCache) groups(pid uint32) []uint32 {
	if pid == 0 {
		return nil
	}
	c.mu.Lock()
	if g, ok := c.m[pid]; ok && time.Now().Before(g.expires) {
		c.mu.Unlock()
		return g.gids
	}
	c.mu.Unlock()
	gids := readGroups(pid)
	c.mu.Lock()
	if c.m == nil || len(c.m) > 4096 {
		c.m = make(map[uint32]cachedGroups)
	}
	c.m[pid] = cachedGroups{gids: gids, expires: time.Now().Add(time.Second)}
	c.mu.Unlock()
	return gids
}

// readGroups reads the Groups line of /proc/PID/status.
func readGroups(pid uint32) []uint32 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return nil
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "Groups:")
		if !ok {
			continue
		}
		var gids []uint32
		for _, field := range strings.Fields(line) {
			if g, err := strconv.ParseUint(field, 10, 32); err == nil {
				gids = append(gids, uint32(g))
			}
		}
		return gids
	}
	return nil
}

func (fs *FS) cred(h *gofuse.InHeader) meta.Cred {
	c := meta.Cred{Uid: h.Uid, Gid: h.Gid}
	if c.Uid != 0 {
		c.Gids = fs.groups.groups(h.Pid)
	}
	return c
}
