package volume

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"cairn/backup"
	"cairn/meta"
)

// MinBackupInterval is the shortest Options.BackupMeta accepted: a dump
// every second is already more than any volume needs.
const MinBackupInterval = time.Second

// startBackups starts writing metadata backups into the volume's object
// store every opts.BackupMeta (see package backup); dumper is the engine
// before any wrapper that waits for a server, so that a backup that
// cannot reach the database fails and is tried again at the next
// interval instead of waiting. An engine that cannot dump is logged and
// left without backups.
func (v *Volume) startBackups(dumper meta.Dumper, ok bool, opts Options) {
	if opts.BackupMeta <= 0 {
		return
	}
	if !ok {
		slog.Warn("no metadata backups: the engine cannot dump", "engine", v.Engine.Name())
		return
	}
	// The dump waits on disk, not in memory (a tmpfs /tmp is memory).
	tempDir := ""
	if st, err := os.Stat(opts.CacheDir); err == nil && st.IsDir() {
		tempDir = opts.CacheDir
	}
	v.backups = backup.Start(backup.Config{
		TempDir:  tempDir,
		Interval: opts.BackupMeta,
		Dumper:   followingDumper{Dumper: dumper, client: v.Client},
		Sessions: v.Client.Engine().ListSessions,
		Session:  v.Client.Session,
		Store:    v.Objects,
	})
}

func (v *Volume) stopBackups() {
	if v.backups != nil {
		v.backups.Stop()
		v.backups = nil
	}
}

// followingDumper dumps the engine the volume was opened with until an
// online migration moves the client to another; from then on it dumps
// that one, so that backups follow the volume (the old engine no longer
// changes, and is closed).
type followingDumper struct {
	meta.Dumper
	client *meta.Client
}

func (d followingDumper) Dump(ctx context.Context, w meta.DumpWriter) error {
	if !d.client.Followed() {
		return d.Dumper.Dump(ctx, w)
	}
	now, ok := meta.VolumeDumper(d.client.Current())
	if !ok {
		return fmt.Errorf("the engine the volume moved to cannot dump")
	}
	return now.Dump(ctx, w)
}
