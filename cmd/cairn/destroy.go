package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"cairn/backup"
	"cairn/chunk"
	"cairn/meta"
	"cairn/volume"

	"github.com/spf13/cobra"
)

// liveSession is how recent a session's heartbeat must be for destroy to
// count its client as mounted: the clients' default session timeout,
// after which any client closes the session as stale.
const liveSession = 5 * time.Minute

func destroyCommand() *cobra.Command {
	c := &cobra.Command{
		Use:     "destroy META-URL UUID",
		Short:   "remove every object and all metadata of a volume",
		Example: "  cairn status sqlite3:///var/lib/cairn/vol.db | jq -r .setting.uuid\n  cairn destroy sqlite3:///var/lib/cairn/vol.db 0b7c3c9e-5d47-4a8e-9d1f-2f1c7e6a9b01",
		Args:    exactArgs(2),
	}
	fs := c.Flags()
	var store storeFlags
	store.register(fs)
	force := fs.Bool("force", false, "destroy even while clients are mounted (they fail from then on)")
	c.RunE = func(_ *cobra.Command, pos []string) error {
		metaURL, uuid := pos[0], pos[1]
		ctx := context.Background()
		vol, err := volume.OpenMeta(ctx, metaURL, volume.Options{})
		if err != nil {
			return err
		}
		defer vol.Close(ctx)
		f := vol.Format
		if uuid != f.UUID {
			return fmt.Errorf("%q is not the uuid of volume %q at %s: nothing was destroyed (type the uuid 'cairn status' shows)", uuid, f.Name, vol.URL)
		}
		if _, ok := meta.Capability[meta.Destroyer](vol.Engine); !ok {
			return fmt.Errorf("the %s engine cannot destroy a volume", vol.Engine.Name())
		}
		// Even with --force: the objects destroy deletes are those of the
		// copy the migration is making, and DST would hold a volume
		// without data. Only the check before: destroy removes the record.
		if err := meta.CheckNotMigrating(ctx, vol.Engine, meta.VolumeWrite); err != nil {
			return err
		}
		sessions, err := vol.Engine.ListSessions(ctx)
		if err != nil {
			return fmt.Errorf("list the clients of volume %q: %w", f.Name, err)
		}
		if live := liveSessions(sessions, time.Now()); len(live) > 0 && !*force {
			return fmt.Errorf("volume %q is mounted by %d client(s) (%s): unmount them, or add --force; nothing was destroyed", f.Name, len(live), strings.Join(live, ", "))
		}
		if err := vol.OpenObjects(ctx, volume.Options{Store: store.options()}); err != nil {
			return err
		}
		bar := newStatusLine()
		done, err := vol.Destroy(ctx, func(d volume.Destroyed) {
			bar.show("destroy %s: %d objects (%s) deleted", f.Name, d.Objects, humanBytes(uint64(d.Bytes)))
		})
		bar.done()
		if errors.Is(err, volume.ErrMetadataRemoved) {
			return fmt.Errorf("%w (%d objects deleted; delete what is left under %s and %s in %s by hand)", err, done.Objects, chunk.KeyPrefix, backup.Prefix, f.Bucket)
		}
		if err != nil {
			return fmt.Errorf("%w (%d objects deleted so far; run destroy again to finish)", err, done.Objects)
		}
		inform(os.Stdout, "destroyed volume %q (uuid %s): %d objects (%s) and its metadata at %s",
			f.Name, f.UUID, done.Objects, humanBytes(uint64(done.Bytes)), vol.URL)
		return nil
	}
	return c
}

// liveSessions names the sessions that proved alive lately, as
// host:mount point (pid).
func liveSessions(sessions []meta.SessionInfo, now time.Time) []string {
	var live []string
	for _, s := range sessions {
		if now.Sub(s.Heartbeat) < liveSession {
			live = append(live, fmt.Sprintf("%s:%s (pid %d)", s.Hostname, s.MountPoint, s.PID))
		}
	}
	return live
}
