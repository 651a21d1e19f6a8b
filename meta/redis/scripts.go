package redis

import (
	"context"
	"crypto/sha1"
	"embed"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"cairn/meta"
)

//go:embed scripts/*.lua
var scriptFiles embed.FS

// script is one operation's Lua source, with the shared helpers in front.
type script struct {
	name string
	src  string
	sha  string
}

// standalone names the scripts that run without the helpers: reads on
// the path of every FUSE LOOKUP, where defining the helpers' hundreds of
// lines on each call would cost more than the reads themselves.
var standalone = map[string]bool{"lookup": true}

// unpaused are the scripts that run while a dump pauses the volume: they
// only read, or they only touch locks, which a dump leaves out, or
// directory statistics and quota usage, which a dump reads after the
// pause (meta.VolumeDumper). Every other script starts with paused.lua,
// so a new one is paused unless listed here.
var unpaused = map[string]bool{"lookup": true, "readdir": true, "getlk": true, "setlk": true, "flock": true, "addstats": true}

// loadScripts reads every operation script; helpers (lib, perm, plock,
// paused) are prepended, not run on their own.
func loadScripts() (map[string]*script, error) {
	read := func(name string) (string, error) {
		b, err := scriptFiles.ReadFile("scripts/" + name + ".lua")
		return string(b), err
	}
	lib, err := read("lib")
	if err != nil {
		return nil, err
	}
	perm, err := read("perm")
	if err != nil {
		return nil, err
	}
	plock, err := read("plock")
	if err != nil {
		return nil, err
	}
	paused, err := read("paused")
	if err != nil {
		return nil, err
	}
	entries, err := scriptFiles.ReadDir("scripts")
	if err != nil {
		return nil, err
	}
	out := map[string]*script{}
	for _, en := range entries {
		name := strings.TrimSuffix(en.Name(), ".lua")
		if name == "lib" || name == "perm" || name == "plock" || name == "paused" {
			continue
		}
		body, err := read(name)
		if err != nil {
			return nil, err
		}
		src := lib + perm
		switch {
		case standalone[name]:
			src = ""
		case name == "getlk" || name == "setlk":
			src += plock
		}
		if !unpaused[name] {
			src = paused + src
		}
		out[name] = newScript(name, src+body)
	}
	return out, nil
}

func newScript(name, src string) *script {
	sum := sha1.Sum([]byte(src))
	return &script{name: name, src: src, sha: hex.EncodeToString(sum[:])}
}

// header is ARGV[1..5] of every script: the caller's identity and clock.
func header(cred meta.Cred, now time.Time) []any {
	gids := make([]string, len(cred.Gids))
	for i, g := range cred.Gids {
		gids[i] = strconv.FormatUint(uint64(g), 10)
	}
	s, ns := meta.SplitTime(now.UnixNano())
	return []any{cred.Uid, cred.Gid, strings.Join(gids, ","), s, ns}
}

// call runs operation name as cred, with the engine's clock: EVALSHA, and
// EVAL when the server's script cache lost it (after a restart or SCRIPT
// FLUSH), which also caches it again.
func (e *Engine) call(ctx context.Context, name string, cred meta.Cred, args ...any) (any, error) {
	return e.callAt(ctx, name, cred, time.Now(), args...)
}

// callAt is call with the clock at now.
func (e *Engine) callAt(ctx context.Context, name string, cred meta.Cred, now time.Time, args ...any) (any, error) {
	s := e.scripts[name]
	if s == nil {
		return nil, fmt.Errorf("redis: no script %q", name)
	}
	argv := append(header(cred, now), args...)
	keys := []string{e.prefix}
	var wait pauseWait
	for {
		r, err := e.rdb.EvalSha(ctx, s.sha, keys, argv...).Result()
		if err != nil && goredis.HasErrorPrefix(err, "NOSCRIPT") {
			e.stats.retries.Add(1)
			r, err = e.rdb.Eval(ctx, s.src, keys, argv...).Result()
		}
		if isPaused(err) {
			e.stats.pauseWaits.Add(1)
			if err = wait.next(ctx); err == nil {
				continue
			}
		}
		if err != nil {
			return nil, e.fail(name, err)
		}
		return r, nil
	}
}

// loadAll puts every script into the server's cache in one pipeline, so
// that operations cost one EVALSHA from the first call on.
func (e *Engine) loadAll(ctx context.Context) error {
	_, err := e.rdb.Pipelined(ctx, func(p goredis.Pipeliner) error {
		for _, s := range e.scripts {
			p.ScriptLoad(ctx, s.src)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("load scripts into Redis at %s: %w", e.where, err)
	}
	return nil
}
