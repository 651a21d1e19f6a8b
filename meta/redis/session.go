package redis

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"cairn/meta"
)

// NewSession registers a mounted client, see meta.Engine.
func (e *Engine) NewSession(ctx context.Context, info meta.SessionInfo) (uint64, error) {
	sid, err := e.rdb.Incr(ctx, e.prefix+":nextsession").Uint64()
	if err != nil {
		return 0, e.fail("new session", err)
	}
	now := time.Now()
	info.ID = sid
	if info.Started.IsZero() {
		info.Started = now
	}
	info.Heartbeat = now
	raw, err := json.Marshal(info)
	if err != nil {
		return 0, fmt.Errorf("encode session: %w", err)
	}
	_, err = e.rdb.TxPipelined(ctx, func(p goredis.Pipeliner) error {
		p.HSet(ctx, e.prefix+":sessinfo", sid, raw)
		p.ZAdd(ctx, e.prefix+":sessions", goredis.Z{Score: float64(now.UnixMilli()), Member: sid})
		return nil
	})
	if err != nil {
		return 0, e.fail("new session", err)
	}
	return sid, nil
}

// Heartbeat refreshes a session, see meta.Engine.
func (e *Engine) Heartbeat(ctx context.Context, sid uint64) error {
	n, err := e.rdb.ZAddArgs(ctx, e.prefix+":sessions", goredis.ZAddArgs{
		XX: true, Ch: true, Members: []goredis.Z{{Score: float64(time.Now().UnixMilli()), Member: sid}},
	}).Result()
	if err != nil {
		return e.fail("heartbeat", err)
	}
	if n == 0 && e.rdb.ZScore(ctx, e.prefix+":sessions", strconv.FormatUint(sid, 10)).Err() != nil {
		return fmt.Errorf("session %d is closed (declared dead?): %w", sid, meta.ErrNotFound)
	}
	return nil
}

// CloseSession releases a session's orphans and locks, see meta.Engine.
func (e *Engine) CloseSession(ctx context.Context, sid uint64) error {
	_, err := e.call(ctx, "closesession", meta.RootCred, sid)
	return err
}

// ListSessions lists every session, see meta.Engine.
func (e *Engine) ListSessions(ctx context.Context) ([]meta.SessionInfo, error) {
	var infos *goredis.MapStringStringCmd
	var beats *goredis.ZSliceCmd
	_, err := e.rdb.Pipelined(ctx, func(p goredis.Pipeliner) error {
		infos = p.HGetAll(ctx, e.prefix+":sessinfo")
		beats = p.ZRangeWithScores(ctx, e.prefix+":sessions", 0, -1)
		return nil
	})
	if err != nil {
		return nil, e.fail("list sessions", err)
	}
	beat := map[string]time.Time{}
	for _, z := range beats.Val() {
		beat[z.Member.(string)] = time.UnixMilli(int64(z.Score))
	}
	out := make([]meta.SessionInfo, 0, len(infos.Val()))
	for id, raw := range infos.Val() {
		var s meta.SessionInfo
		if err := json.Unmarshal([]byte(raw), &s); err != nil {
			return nil, fmt.Errorf("corrupt session %s: %w", id, err)
		}
		if t, ok := beat[id]; ok {
			s.Heartbeat = t
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// CleanStaleSessions closes sessions silent since before, see meta.Engine.
func (e *Engine) CleanStaleSessions(ctx context.Context, before time.Time) (int, error) {
	ids, err := e.rdb.ZRangeByScore(ctx, e.prefix+":sessions", &goredis.ZRangeBy{
		Min: "-inf", Max: "(" + strconv.FormatInt(before.UnixMilli(), 10),
	}).Result()
	if err != nil {
		return 0, e.fail("find stale sessions", err)
	}
	n := 0
	for _, id := range ids {
		sid, err := strconv.ParseUint(id, 10, 64)
		if err != nil {
			continue
		}
		if err := e.CloseSession(ctx, sid); err != nil {
			return n, fmt.Errorf("close stale session %d: %w", sid, err)
		}
		n++
	}
	return n, nil
}
