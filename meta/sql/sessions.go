package sql

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"cairn/meta"
)

// NewSession registers a client.
func (e *Engine) NewSession(ctx context.Context, info meta.SessionInfo) (uint64, error) {
	var sid uint64
	err := e.txn(ctx, func(c *conn) error {
		var err error
		if sid, err = c.next("session", 1); err != nil {
			return err
		}
		now := time.Now()
		info.ID, info.Started, info.Heartbeat = sid, now, now
		js, err := json.Marshal(info)
		if err != nil {
			return fmt.Errorf("encode session: %w", err)
		}
		_, err = c.exec("INSERT INTO cairn_session (sid, info, heartbeat) VALUES (?, ?, ?)", int64(sid), js, now.UnixNano())
		return err
	})
	return sid, err
}

// Heartbeat refreshes a session; ErrNotFound when it was closed meanwhile.
func (e *Engine) Heartbeat(ctx context.Context, sid uint64) error {
	return e.write(ctx, func(c *conn) error {
		n, err := c.execCount("UPDATE cairn_session SET heartbeat = ? WHERE sid = ?", time.Now().UnixNano(), int64(sid))
		if err == nil && n == 0 {
			return fmt.Errorf("session %d: %w", sid, meta.ErrNotFound)
		}
		return err
	})
}

// ListSessions lists every session, live or stale.
func (e *Engine) ListSessions(ctx context.Context) ([]meta.SessionInfo, error) {
	var out []meta.SessionInfo
	err := e.read(ctx, func(c *conn) error {
		out = out[:0]
		rows, err := c.query("SELECT sid, info, heartbeat FROM cairn_session ORDER BY sid")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var sid, hb int64
			var js []byte
			if err := rows.Scan(&sid, &js, &hb); err != nil {
				return err
			}
			var s meta.SessionInfo
			if err := json.Unmarshal(js, &s); err != nil {
				return fmt.Errorf("decode session %d: %w", sid, err)
			}
			s.ID, s.Heartbeat = uint64(sid), time.Unix(0, hb)
			out = append(out, s)
		}
		return rows.Err()
	})
	return out, err
}

// CloseSession releases a session's orphans and locks and forgets it.
func (e *Engine) CloseSession(ctx context.Context, sid uint64) error {
	var orphans []meta.Ino
	err := e.read(ctx, func(c *conn) error {
		orphans = orphans[:0]
		rows, err := c.query("SELECT ino FROM cairn_orphan WHERE sid = ?", int64(sid))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var ino int64
			if err := rows.Scan(&ino); err != nil {
				return err
			}
			orphans = append(orphans, meta.Ino(ino))
		}
		return rows.Err()
	})
	if err != nil {
		return fmt.Errorf("list orphans of session %d: %w", sid, err)
	}
	for _, ino := range orphans {
		if err := e.ReleaseOrphan(ctx, sid, ino); err != nil {
			return fmt.Errorf("release orphan %d of session %d: %w", ino, sid, err)
		}
	}
	return e.txn(ctx, func(c *conn) error {
		for _, q := range []string{
			"DELETE FROM cairn_flock WHERE sid = ?",
			"DELETE FROM cairn_plock WHERE sid = ?",
			"DELETE FROM cairn_session WHERE sid = ?",
		} {
			if _, err := c.exec(q, int64(sid)); err != nil {
				return err
			}
		}
		return nil
	})
}

// CleanStaleSessions closes sessions whose heartbeat is older than before.
func (e *Engine) CleanStaleSessions(ctx context.Context, before time.Time) (int, error) {
	var stale []uint64
	err := e.read(ctx, func(c *conn) error {
		stale = stale[:0]
		rows, err := c.query("SELECT sid FROM cairn_session WHERE heartbeat < ?", before.UnixNano())
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var sid int64
			if err := rows.Scan(&sid); err != nil {
				return err
			}
			stale = append(stale, uint64(sid))
		}
		return rows.Err()
	})
	if err != nil {
		return 0, err
	}
	for i, sid := range stale {
		if err := e.CloseSession(ctx, sid); err != nil {
			return i, err
		}
	}
	return len(stale), nil
}
