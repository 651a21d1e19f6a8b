package main

import (
	"context"
	"fmt"
	"os"

	"cairn/gc"
	"cairn/meta"
	"cairn/vfs"
	"cairn/volume"

	"github.com/spf13/cobra"
)

func gcCommand() *cobra.Command {
	c := &cobra.Command{
		Use:     "gc META-URL",
		Short:   "find objects no file needs (leaked by a crash, or waiting in the dead-slice queue); --delete removes them, --compact merges fragmented files first",
		Example: "  cairn gc sqlite3:///var/lib/cairn/vol.db\n  cairn gc sqlite3:///var/lib/cairn/vol.db --compact --delete",
		Args:    exactArgs(1),
	}
	fs := c.Flags()
	var store storeFlags
	store.register(fs)
	del := fs.Bool("delete", false, "delete the leaked objects and empty the dead-slice queue")
	compact := fs.Bool("compact", false, "first merge every chunk of every file that holds more than one slice (as 'cairn compact' does)")
	minAge := fs.Duration("min-age", gc.DefaultMinAge, "an unreferenced object counts as leaked only if written this long before gc read the metadata (protects writes in flight)")
	threads := new(int)
	threadsFlag(fs, threads, gc.DefaultWorkers, "objects deleted at once")
	c.RunE = func(_ *cobra.Command, pos []string) error {
		var err error
		if *threads < 1 {
			return fmt.Errorf("invalid --threads %d: use 1 or more", *threads)
		}
		if *minAge <= 0 {
			return fmt.Errorf("invalid --min-age %v: use a positive duration, e.g. 1h (a write in flight uploads before it commits)", *minAge)
		}
		ctx := context.Background()
		opts := volume.Options{Store: store.options()}
		var vol *volume.Volume
		if *compact {
			vol, err = volume.Open(ctx, pos[0], opts)
		} else {
			vol, err = volume.OpenMeta(ctx, pos[0], opts)
			if err == nil {
				if err = vol.OpenObjects(ctx, opts); err != nil {
					vol.Close(ctx)
				}
			}
		}
		if err != nil {
			return err
		}
		defer vol.Close(ctx)
		bar := newStatusLine()
		if *compact {
			st, err := vol.VFS.CompactTree(ctx, meta.RootIno, 2, func(st vfs.CompactStats) {
				bar.show("gc %s: compacting: %d files, %d chunks merged", vol.Format.Name, st.Files, st.Chunks)
			})
			bar.done()
			if err != nil {
				return fmt.Errorf("compact volume %q: %w", vol.Format.Name, err)
			}
			printCompacted(st)
		}
		var progress gc.Progress
		stop := showEvery(func() {
			bar.show("gc %s: %d records read, %d objects listed, %d leaked, %d deleted", vol.Format.Name,
				progress.Records.Load(), progress.Listed.Load(), progress.Leaked.Load(), progress.Deleted.Load())
		})
		// Not meta.WriteOutsideMount: the one metadata write, --delete
		// dropping from the dead-slice queue the slices whose blocks it
		// deleted, may miss a migration's DST harmlessly; the next gc or
		// mount there deletes the blocks again (already gone: a success)
		// and drops them.
		res, err := gc.Collect(ctx, vol.Engine, vol.Objects, int(vol.Format.BlockSize), gc.Options{
			MinAge: *minAge, Delete: *del, Workers: *threads, Progress: &progress,
		})
		stop()
		bar.done()
		if err != nil {
			return fmt.Errorf("gc of volume %q: %w (%d leaked objects deleted so far)", vol.Format.Name, err, res.Deleted.Objects)
		}
		out := os.Stdout
		count := func(c gc.Count) string { return fmt.Sprintf("%d objects (%s)", c.Objects, humanBytes(uint64(c.Bytes))) }
		fmt.Fprintf(out, "listed:   %s\n", count(res.Listed))
		fmt.Fprintf(out, "leaked:   %s, written before %s and used by no file\n", count(res.Leaked), res.Snapshot.Add(-*minAge).UTC().Format("2006-01-02 15:04:05 MST"))
		fmt.Fprintf(out, "young:    %s unused but too recent to judge (writes in flight), kept\n", count(res.Young))
		fmt.Fprintf(out, "dead:     %d slices (%s) in the dead-slice queue, %s\n", res.DeadSlices.Objects, humanBytes(uint64(res.DeadSlices.Bytes)), count(res.Dead))
		if res.Stray.Objects > 0 {
			fmt.Fprintf(out, "stray:    %d slices (%s) in chunks of inodes that no longer exist, counted as leaked\n", res.Stray.Objects, humanBytes(uint64(res.Stray.Bytes)))
		}
		if res.Foreign.Objects > 0 {
			fmt.Fprintf(out, "other:    %s under chunks/ that cairn did not write, left alone\n", count(res.Foreign))
		}
		if *del {
			fmt.Fprintf(out, "deleted %s leaked, and %d dead slices\n", count(res.Deleted), res.DeadRemoved)
		} else if res.Leaked.Objects > 0 || res.DeadSlices.Objects > 0 {
			inform(out, "run again with --delete to remove the leaked objects and empty the dead-slice queue")
		}
		return nil
	}
	return c
}
