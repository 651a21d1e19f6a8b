package control

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"cairn/meta"
	"cairn/meta/engines"
	"cairn/migrate"
	"cairn/volume"
)

// migrate moves the mount's volume to the empty database at
// Migrate.Destination while this mount and every other mount of the
// volume keep working (package migrate), with the mount's own engine as
// SRC, beneath its client's Tracker: the migrator reads and writes SRC's
// record and change log directly, and the mount's client follows the
// record like any other. It works on every engine, and is the only way
// to migrate a mounted Badger volume, which no other process may open.
//
// Only root and the mount's owner may ask: a migration hands the whole
// volume to another database, theirs to choose as the mount's own was.
// A closed connection cancels it before the switch, which leaves the
// volume on SRC.
func (c *call) migrate() (any, error) {
	m := c.req.Migrate
	if m == nil || m.Destination == "" {
		return nil, errors.New("a migration needs the URL of its destination")
	}
	if c.cred.Uid != 0 && c.cred.Uid != c.owner {
		return nil, fmt.Errorf("only root or the mount's owner (uid %d) may migrate its volume: run the command as one of them; nothing was changed", c.owner)
	}
	if err := c.writable(); err != nil {
		return nil, err
	}
	client := c.v.Client()
	src, dst := c.v.MetaURL(), engines.Redact(m.Destination)
	if client.Followed() {
		return nil, fmt.Errorf("this mount followed its volume from %s to another database already: remount it from there to migrate the volume again; nothing was changed", src)
	}
	if strings.HasPrefix(m.Destination, "mem://") {
		return nil, errors.New("mem:// keeps a volume inside one process only: nothing could migrate to it; nothing was changed")
	}
	// The record and the copy name the URLs without their passwords; the
	// mount reports its own with the password masked.
	sourceURL := engines.WithoutPassword(src)
	destinationURL := engines.WithoutPassword(m.Destination)
	if sourceURL == destinationURL {
		return nil, fmt.Errorf("the mount's volume already lives at %s: give an empty database as DST-URL; nothing was changed", dst)
	}

	// The mount's client opens DST at the switch with what the command
	// sent, not with the mount's environment.
	endLend := volume.LendDestination(m.Destination, m.Password)
	destination, err := volume.OpenDestination(m.Destination)
	if err != nil {
		endLend()
		return nil, fmt.Errorf("open the destination %s: %w; nothing was changed", dst, err)
	}
	defer destination.Close()
	if _, err := destination.Load(c.ctx); err != nil && !errors.Is(err, meta.ErrNotFormatted) {
		endLend()
		return nil, fmt.Errorf("read the destination %s: %w; nothing was changed", dst, err)
	}

	// SRC stays open for the migrator after the mount's client has left
	// it at the switch.
	source, release := client.HoldCurrent()
	defer func() {
		if err := release(); err != nil {
			slog.Warn("close the engine the volume moved from", "err", err)
		}
	}()
	var last migrate.Event
	hold := migrate.NewHold(m.Hold, nil)
	stopAnnounceNudge := nudge(c.ctx, client, meta.MigrationPoll)
	defer stopAnnounceNudge()
	stopSwitchNudge := func() {}
	defer func() { stopSwitchNudge() }()
	opts := migrate.Options{AckTimeout: m.AckTimeout, PauseTimeout: m.PauseTimeout, Lease: m.Lease, AckPoll: switchPoll, Progress: func(e migrate.Event) {
		stopAnnounceNudge() // every session tracks
		switch {
		case e.Stage == migrate.StageBulkCopy && e.Done:
			// The pause follows the last catch-up round.
			stopSwitchNudge = nudge(c.ctx, client, switchPoll)
		case e.Stage == migrate.StageSwitch:
			stopSwitchNudge()
		}
		last = e
		if data, err := json.Marshal(e); err == nil {
			c.out.send(Reply{Progress: data})
		}
		hold.At(c.ctx, e)
	}}
	slog.Info("migrating the mounted volume", "from", src, "to", dst, "uid", c.cred.Uid)
	err = migrate.Run(c.ctx, source, destination, sourceURL, destinationURL, opts)
	if err != nil {
		if !movedFrom(source) {
			endLend()
		}
		slog.Warn("the migration of the mounted volume stopped", "from", src, "to", dst, "err", err)
		return nil, migrate.Explain(err, src, dst, c.ctx.Err() != nil)
	}
	if client.Followed() {
		endLend()
	} // else the client has not opened DST yet, and will with what was lent
	slog.Info("the mounted volume moved", "from", src, "to", dst)
	return last, nil
}

// switchPoll is how often the mount's client reads the record from the
// catch-up to the end of the switch: it pauses, and then moves to DST
// and lets its held mutations go on, within that of the migrator's
// change of phase, not within a MigrationPoll.
const switchPoll = 5 * time.Millisecond

// nudge has the mount's client read the migration record every period
// until the stop it returns is called. Until every session tracks, the
// mount's own acknowledgement comes within a MigrationPoll instead of up
// to a heartbeat; from the catch-up on, it follows within switchPoll. Other
// mounts read the record on their own, as for 'cairn migrate SRC-URL
// DST-URL'.
func nudge(ctx context.Context, client *meta.Client, period time.Duration) (stop func()) {
	done := make(chan struct{})
	var once sync.Once
	go func() {
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			client.FollowNow()
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return func() { once.Do(func() { close(done) }) }
}

// movedFrom reports whether SRC says its volume moved (the migration
// switched before it failed).
func movedFrom(source meta.Engine) bool {
	ctx, cancel := context.WithTimeout(context.Background(), progressEvery*10)
	defer cancel()
	return errors.Is(meta.CheckMoved(ctx, source), meta.ErrMoved)
}
