package meta

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"
)

// PurgeWorkers is how many removals the trash purge keeps in flight.
const PurgeWorkers = 64

// PurgeTrash removes, for good, every hour folder of the trash that has
// expired at now under the volume's TrashDays (all of them when the trash
// is off), with PurgeWorkers removals in parallel. It returns how many
// entries it removed (folders included). Any client may call it; the
// background job calls it on one client at a time.
func (c *Client) PurgeTrash(ctx context.Context, now time.Time) (int64, error) {
	var removed atomic.Int64
	days := c.TrashDays()
	after := ""
	for {
		es, err := c.eng.Readdir(ctx, TrashIno, after, 1000, false)
		if errors.Is(err, ErrNotFound) {
			return removed.Load(), nil
		}
		if err != nil {
			return removed.Load(), fmt.Errorf("list the trash: %w", err)
		}
		if len(es) == 0 {
			return removed.Load(), nil
		}
		after = es[len(es)-1].Name
		for _, e := range es {
			hour, ok := ParseTrashHour(e.Name)
			if !ok || e.Type != TypeDirectory || !TrashExpired(hour, days, now) {
				continue
			}
			if err := c.RemoveTree(ctx, RootCred, TrashIno, e.Name, e.Ino, PurgeWorkers, &removed); err != nil {
				return removed.Load(), fmt.Errorf("purge the trash folder %s: %w", e.Name, err)
			}
			c.trash.hour.CompareAndSwap(uint64(e.Ino), 0)
		}
	}
}

// trashJobEvery is how many heartbeats pass between two runs of the
// trash job.
const trashJobEvery = 6

// trashJob runs the trash's periodic work in the background, unless the
// previous run is still going: it reads the volume's TrashDays again
// (another client may have changed it with 'cairn config'), and when
// this client's session is the leader (IsLeader), purges what expired.
func (c *Client) trashJob(stop <-chan struct{}) {
	if !c.trash.purging.CompareAndSwap(false, true) {
		return
	}
	c.trash.jobs.Add(1)
	go func() {
		defer c.trash.jobs.Done()
		defer c.trash.purging.Store(false)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() {
			select {
			case <-stop:
				cancel()
			case <-ctx.Done():
			}
		}()
		if err := c.TrashJob(ctx); err != nil && ctx.Err() == nil {
			slog.Warn("trash job", "err", err)
		}
	}()
}

// TrashJob is one run of the trash's background job: it reads the
// volume's TrashDays again and, when this client's session leads, purges
// what expired by the client's clock.
func (c *Client) TrashJob(ctx context.Context) error {
	c.loadTrashDays(ctx)
	sessions, err := c.eng.ListSessions(ctx)
	if err != nil {
		return fmt.Errorf("list sessions: %w", err)
	}
	now := c.clock()
	if !IsLeader(sessions, c.Session(), now, 3*c.cfg.Heartbeat) {
		return nil
	}
	start := time.Now()
	n, err := c.PurgeTrash(ctx, now)
	if n > 0 {
		slog.Info("purged the trash", "entries", n, "seconds", time.Since(start).Seconds())
	}
	return err
}

// loadTrashDays reads the volume's TrashDays; a volume that cannot be
// read keeps the last value known.
func (c *Client) loadTrashDays(ctx context.Context) {
	f, err := c.eng.Load(ctx)
	if err != nil {
		if !errors.Is(err, ErrNotFormatted) {
			slog.Warn("read the volume's trash setting", "err", err)
		}
		return
	}
	c.SetTrashDays(f.TrashDays)
}
