package meta

import (
	"context"
	"fmt"
	"log/slog"
	"time"
)

// Start registers the client's session and starts its heartbeat, which
// also closes the sessions of clients that stopped beating.
func (c *Client) Start(ctx context.Context) error {
	info := c.cfg.Session
	if info.Started.IsZero() {
		info.Started = time.Now()
	}
	sid, err := c.eng.NewSession(ctx, info)
	if err != nil {
		return fmt.Errorf("register session: %w", err)
	}
	stop, done, statsDone, followDone := make(chan struct{}), make(chan struct{}), make(chan struct{}), make(chan struct{})
	c.mu.Lock()
	c.sid, c.info, c.stop, c.done, c.statsDone, c.followDone = sid, info, stop, done, statsDone, followDone
	c.mu.Unlock()
	go c.flushDirStatsLoop(stop, statsDone)
	// A migration under way is followed before the client's first
	// mutation (cleanStale's included): all its changes are tracked.
	var follow follower
	follow.fromStart = true
	c.followStep(ctx, &follow)
	follow.fromStart = false
	go c.followMigrations(stop, followDone, follow)
	c.cleanStale(ctx)
	c.loadTrashDays(ctx)
	go c.heartbeat(stop, done)
	return nil
}

// Session is the id of this client's session (0 before Start).
func (c *Client) Session() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sid
}

func (c *Client) heartbeat(stop, done chan struct{}) {
	defer close(done)
	t := time.NewTicker(c.cfg.Heartbeat)
	defer t.Stop()
	beats := 0
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), c.cfg.Heartbeat)
		if err := c.eng.Heartbeat(ctx, c.Session()); err != nil {
			slog.Warn("session heartbeat failed", "session", c.Session(), "err", err)
		}
		beats++
		if beats%6 == 0 {
			c.cleanStale(ctx)
		}
		if beats%trashJobEvery == 0 {
			c.trashJob(stop)
		}
		cancel()
	}
}

func (c *Client) cleanStale(ctx context.Context) {
	n, err := c.eng.CleanStaleSessions(ctx, time.Now().Add(-c.cfg.SessionTimeout))
	if err != nil {
		slog.Warn("clean stale sessions", "err", err)
	} else if n > 0 {
		slog.Info("closed stale sessions", "count", n)
	}
}

// Close stops the heartbeat and closes the session, which releases its
// orphans and locks. It does not close the engine.
func (c *Client) Close(ctx context.Context) error {
	c.mu.Lock()
	stop, done, statsDone, followDone := c.stop, c.done, c.statsDone, c.followDone
	c.stop = nil
	c.mu.Unlock()
	if stop == nil {
		return nil
	}
	close(stop)
	<-done
	<-statsDone
	<-followDone
	c.mu.Lock()
	sid := c.sid // read only now: a migration may have renamed it
	c.sid = 0
	c.mu.Unlock()
	c.trash.jobs.Wait()
	if err := c.FlushDirStats(ctx); err != nil {
		slog.Warn("flush directory statistics at close", "err", err)
	} else if err := c.dropFlushMarks(ctx); err != nil {
		slog.Warn("forget the flush marks at close", "err", err)
	}
	if err := c.eng.CloseSession(ctx, sid); err != nil {
		return fmt.Errorf("close session %d: %w", sid, err)
	}
	return nil
}
