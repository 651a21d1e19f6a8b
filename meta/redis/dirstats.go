package redis

import (
	"context"
	"fmt"
	"strconv"

	goredis "github.com/redis/go-redis/v9"

	"cairn/meta"
)

var _ meta.DirStatStore = (*Engine)(nil)

// Directory statistics (meta.DirStatStore) are two hashes keyed by the
// directory's inode number: <prefix>:dirspace and <prefix>:dirinodes. A
// flush is one script (scripts/addstats.lua) of HINCRBYs and HDELs: one
// round trip, whatever the number of directories, and atomic with the
// check of its FlushMark. The marks' records are fields of dirinodes too,
// named by the mark's key, whose top bit no inode number has: the
// statistics' readers leave them out (meta.IsFlushMark), and forgetting
// a key's record is removing it as a directory.
func (e *Engine) dirStatKeys() (space, inodes string) {
	return e.prefix + ":dirspace", e.prefix + ":dirinodes"
}

// AddDirStats adds the deltas and forgets the removed directories'
// statistics in one script, see meta.DirStatStore.
func (e *Engine) AddDirStats(ctx context.Context, deltas map[meta.Ino]meta.DirStat, removed []meta.Ino, mark meta.FlushMark) error {
	if err := e.addStats(ctx, "dir", deltas, removed, mark); err != nil {
		return fmt.Errorf("add directory statistics: %w", err)
	}
	return nil
}

// addStats runs scripts/addstats.lua: kind "dir" adds to the directory
// statistics, "quota" to the quotas' usage. An unmarked call goes
// through the script too, rather than a MULTI/EXEC of its own: one path.
// A dump's pause does not hold it (a dump reads the statistics after
// lifting the pause). Numbers go as decimal strings, which the script
// hands to HINCRBY unchanged.
func (e *Engine) addStats(ctx context.Context, kind string, deltas map[meta.Ino]meta.DirStat, removed []meta.Ino, mark meta.FlushMark) error {
	if len(deltas) == 0 && len(removed) == 0 && mark.Key == 0 {
		return nil
	}
	field := ""
	if mark.Key != 0 {
		field = strconv.FormatUint(uint64(mark.Key), 10)
	}
	args := make([]any, 0, 4+3*len(deltas)+len(removed))
	args = append(args, kind, field, strconv.FormatUint(mark.Seq, 10), strconv.Itoa(len(deltas)))
	for dir, d := range deltas {
		args = append(args, strconv.FormatUint(uint64(dir), 10), strconv.FormatInt(d.Space, 10), strconv.FormatInt(d.Inodes, 10))
	}
	for _, dir := range removed {
		args = append(args, strconv.FormatUint(uint64(dir), 10))
	}
	_, err := e.call(ctx, "addstats", meta.RootCred, args...)
	return err
}

// SetDirStats replaces statistics, see meta.DirStatStore. It needs no
// mark, being safe to repeat: one MULTI/EXEC of HSETs and HDELs.
func (e *Engine) SetDirStats(ctx context.Context, stats map[meta.Ino]meta.DirStat, removed []meta.Ino) error {
	spaceKey, inodesKey := e.dirStatKeys()
	_, err := e.rdb.TxPipelined(ctx, func(p goredis.Pipeliner) error {
		for dir, d := range stats {
			field := strconv.FormatUint(uint64(dir), 10)
			p.HSet(ctx, spaceKey, field, d.Space)
			p.HSet(ctx, inodesKey, field, d.Inodes)
		}
		if len(removed) > 0 {
			fields := make([]string, len(removed))
			for i, dir := range removed {
				fields[i] = strconv.FormatUint(uint64(dir), 10)
			}
			p.HDel(ctx, spaceKey, fields...)
			p.HDel(ctx, inodesKey, fields...)
		}
		return nil
	})
	if err != nil {
		return e.fail("set directory statistics", err)
	}
	return nil
}

// DirStats reads statistics, see meta.DirStatStore.
func (e *Engine) DirStats(ctx context.Context, dirs []meta.Ino) (map[meta.Ino]meta.DirStat, error) {
	out := make(map[meta.Ino]meta.DirStat, len(dirs))
	if len(dirs) == 0 {
		return out, nil
	}
	spaceKey, inodesKey := e.dirStatKeys()
	fields := make([]string, len(dirs))
	for i, dir := range dirs {
		fields[i] = strconv.FormatUint(uint64(dir), 10)
	}
	var spaces, inodes *goredis.SliceCmd
	_, err := e.rdb.Pipelined(ctx, func(p goredis.Pipeliner) error {
		spaces = p.HMGet(ctx, spaceKey, fields...)
		inodes = p.HMGet(ctx, inodesKey, fields...)
		return nil
	})
	if err != nil {
		return nil, e.fail("read directory statistics", err)
	}
	for i, dir := range dirs {
		s, sok := spaces.Val()[i].(string)
		n, nok := inodes.Val()[i].(string)
		if !sok && !nok {
			continue
		}
		d, err := parseDirStat(s, n)
		if err != nil {
			return nil, fmt.Errorf("statistics of directory %d: %w", dir, err)
		}
		out[dir] = d
	}
	return out, nil
}

// AllDirStats lists every directory's statistics, see meta.DirStatStore;
// the flush marks' records are left out.
func (e *Engine) AllDirStats(ctx context.Context) (map[meta.Ino]meta.DirStat, error) {
	spaceKey, inodesKey := e.dirStatKeys()
	var spaces, inodes *goredis.MapStringStringCmd
	_, err := e.rdb.Pipelined(ctx, func(p goredis.Pipeliner) error {
		spaces = p.HGetAll(ctx, spaceKey)
		inodes = p.HGetAll(ctx, inodesKey)
		return nil
	})
	if err != nil {
		return nil, e.fail("list directory statistics", err)
	}
	out := map[meta.Ino]meta.DirStat{}
	for _, m := range []map[string]string{spaces.Val(), inodes.Val()} {
		for field := range m {
			ino, err := strconv.ParseUint(field, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("corrupt directory statistics field %q: %w", field, meta.ErrIO)
			}
			if meta.IsFlushMark(meta.Ino(ino)) {
				continue
			}
			d, err := parseDirStat(spaces.Val()[field], inodes.Val()[field])
			if err != nil {
				return nil, fmt.Errorf("statistics of directory %d: %w", ino, err)
			}
			out[meta.Ino(ino)] = d
		}
	}
	return out, nil
}

// parseDirStat reads the two hash values of a directory; a missing one is
// zero.
func parseDirStat(space, inodes string) (meta.DirStat, error) {
	var d meta.DirStat
	for _, f := range []struct {
		s   string
		out *int64
	}{{space, &d.Space}, {inodes, &d.Inodes}} {
		if f.s == "" {
			continue
		}
		n, err := strconv.ParseInt(f.s, 10, 64)
		if err != nil {
			return d, fmt.Errorf("corrupt counter %q: %w", f.s, meta.ErrIO)
		}
		*f.out = n
	}
	return d, nil
}
