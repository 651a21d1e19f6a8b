package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"cairn/bench/fsbench"
	"cairn/control"
	"cairn/inspect"
	"cairn/meta/engines"
	"cairn/migrate"
	"cairn/volume"
)

// runMigrateMounted is 'cairn migrate PATH DST-URL': the migration runs
// inside the process of the mount that holds PATH (package control),
// which streams its stages back; the command's end, Ctrl-C included,
// closes the connection and so cancels it.
func runMigrateMounted(path, destinationURL string, opts migrate.Options) error {
	t, err := inspect.Locate(path)
	if err != nil {
		return fmt.Errorf("%w: give the volume's SRC-URL, or a path inside its cairn mount; nothing was changed", err)
	}
	if t.Control == "" {
		return fmt.Errorf("the mount at %s runs an older cairn without a control channel: give its SRC-URL instead (not possible for Badger), or remount it with this release; nothing was changed", t.MountPoint)
	}
	src, dst := engines.Redact(t.MetaURL), engines.Redact(destinationURL)
	req := control.Request{Op: control.OpMigrate, Path: "/", Shown: t.MountPoint, Migrate: &control.MigrateRequest{
		Destination:  destinationURL,
		Password:     os.Getenv(volume.DestinationPasswordEnv),
		AckTimeout:   opts.AckTimeout,
		PauseTimeout: opts.PauseTimeout,
	}}
	if lease, err := time.ParseDuration(os.Getenv(leaseEnv)); err == nil {
		req.Migrate.Lease = lease
	}
	req.Migrate.Hold = os.Getenv(holdEnv) // the mount stops there too

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	show, done := newMigrateProgress()
	defer done()
	_, err = control.Call(ctx, t.Control, req, func(raw json.RawMessage) {
		var e migrate.Event
		if json.Unmarshal(raw, &e) == nil {
			show.event(e)
		}
	}, func(text string, _ bool) { show.reporter.Note(text) })
	show.end()
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return migrate.Explain(err, src, dst, true)
	case errors.Is(err, control.ErrUnreachable):
		return fmt.Errorf("the cairn mount at %s does not answer on its control channel %s: its process is gone? ('cairn umount %s', then mount it again); nothing was changed", t.MountPoint, t.Control, t.MountPoint)
	}
	return err // the mount's own one line
}

// heldSourceError is why 'cairn migrate SRC-URL DST-URL' cannot open a
// SRC that another process holds (Badger): said with the mount point to
// give instead when this process sees the volume's mount.
func heldSourceError(sourceURL, dst string) error {
	src := engines.Redact(sourceURL)
	if point := mountedAt(sourceURL); point != "" {
		return fmt.Errorf("the volume at %s is mounted at %s, whose process alone may open it: run 'cairn migrate %s %s' instead; nothing was changed", src, point, point, dst)
	}
	return fmt.Errorf("the volume at %s is open in another process, which alone may open it: if that is a mount, run 'cairn migrate MOUNTPOINT %s' instead, else stop it; nothing was changed", src, dst)
}

// mountedAt is the mount point of a cairn mount of the volume at metaURL
// that this process sees, or "" when there is none.
func mountedAt(metaURL string) string {
	want := engines.WithoutPassword(metaURL)
	for _, m := range fsbench.CairnMounts() {
		data, err := os.ReadFile(filepath.Join(m.Point, ".stats"))
		if err != nil {
			continue
		}
		var stats struct {
			MetaURL string `json:"meta_url"`
		}
		if json.Unmarshal(data, &stats) == nil && engines.WithoutPassword(stats.MetaURL) == want {
			return m.Point
		}
	}
	return ""
}
