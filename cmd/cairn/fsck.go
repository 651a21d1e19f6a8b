package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"cairn/fsck"
	"cairn/meta"
	"cairn/volume"

	"github.com/spf13/cobra"
)

func fsckCommand() *cobra.Command {
	c := &cobra.Command{
		Use:     "fsck META-URL",
		Short:   "check a volume's metadata and that every object its files need exists; --repair fixes counters and moves files that lost data to /lost+found",
		Example: "  cairn fsck sqlite3:///var/lib/cairn/vol.db\n  cairn fsck redis://localhost:6379/1 --path /projects --repair",
		Args:    exactArgs(1),
	}
	fs := c.Flags()
	var store storeFlags
	store.register(fs)
	path := fs.String("path", "/", "report only what is broken at or under this path of the volume (from its root)")
	repair := fs.Bool("repair", false, "fix link counts and usage counters, and move files with missing objects to /"+fsck.LostFound)
	threads := new(int)
	threadsFlag(fs, threads, fsck.DefaultWorkers, "objects looked up at once")
	c.RunE = func(_ *cobra.Command, pos []string) error {
		if *threads < 1 {
			return fmt.Errorf("invalid --threads %d: use 1 or more", *threads)
		}
		ctx := context.Background()
		vol, err := volume.OpenMeta(ctx, pos[0], volume.Options{})
		if err != nil {
			return err
		}
		defer vol.Close(ctx)
		if *repair {
			// Refused now rather than after a long check; checked again
			// around the repair.
			if err := meta.CheckNotMigrating(ctx, vol.Engine, meta.VolumeWrite); err != nil {
				return err
			}
		}
		if _, err := meta.ResolvePath(ctx, vol.Engine, *path); err != nil {
			return fmt.Errorf("%w: nothing was checked", err)
		}
		if err := vol.OpenObjects(ctx, volume.Options{Store: store.options()}); err != nil {
			return err
		}
		var progress fsck.Progress
		bar := newStatusLine()
		stop := showEvery(func() {
			bar.show("fsck %s: %d records read, %d of %d objects looked up", vol.Format.Name,
				progress.Records.Load(), progress.Objects.Load(), progress.ObjectsTotal.Load())
		})
		report, err := fsck.Check(ctx, vol.Engine, fsck.Options{
			Path: *path, Store: vol.Objects, BlockSize: int(vol.Format.BlockSize), Workers: *threads, Progress: &progress,
		})
		stop()
		bar.done()
		if err != nil {
			return fmt.Errorf("check volume %q: %w", vol.Format.Name, err)
		}
		out := os.Stdout
		fixable := 0
		for _, p := range report.Problems {
			fmt.Fprintf(out, "%s: %s: %s\n", p.Path, p.Kind, p.Detail)
			if p.Repairable() {
				fixable++
			}
		}
		if report.InLostFound > 0 {
			fmt.Fprintf(out, "note: %d files in /%s lack data (an earlier --repair moved them there: copy out what is left, then remove them)\n", report.InLostFound, fsck.LostFound)
		}
		if report.UsageNote != "" {
			fmt.Fprintf(out, "note: %s\n", report.UsageNote)
		}
		fmt.Fprintf(out, "checked %d inodes (%d records) and %d objects of volume %q under %s: %d problems, %d repairable\n",
			report.Inodes, report.Records, report.Objects, vol.Format.Name, *path, len(report.Problems), fixable)
		if !*repair {
			if len(report.Problems) == 0 {
				return nil
			}
			return fmt.Errorf("volume %q has %d problems (listed above); %d can be fixed with --repair", vol.Format.Name, len(report.Problems), fixable)
		}
		// Link counts, the volume's usage and lost+found are inodes and
		// counters no migration's switch compares.
		return meta.WriteOutsideMount(ctx, vol.Engine, meta.VolumeWrite, func() error {
			return repairVolume(ctx, out, vol, *path, report.Problems, fixable)
		})
	}
	return c
}

func usageWord(repaired bool) string {
	if repaired {
		return "the usage counters"
	}
	return "not the usage counters (they were right)"
}

// repairVolume writes what fsck --repair fixes: the directory statistics
// under path, then the repairable problems.
func repairVolume(ctx context.Context, out io.Writer, vol *volume.Volume, path string, problems []fsck.Problem, fixable int) error {
	if err := repairDirStats(ctx, out, vol.Engine, path); err != nil {
		return err
	}
	if len(problems) == 0 {
		return nil
	}
	done, err := fsck.Repair(ctx, vol.Engine, problems)
	fmt.Fprintf(out, "repaired %d link counts, %s, moved %d files to /%s\n", done.LinkCounts, usageWord(done.Usage), done.Moved, fsck.LostFound)
	if err != nil {
		return err
	}
	if left := len(problems) - fixable; left > 0 {
		return fmt.Errorf("volume %q has %d problems --repair cannot fix (listed above)", vol.Format.Name, left)
	}
	return nil
}
