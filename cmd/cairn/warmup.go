package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"cairn/control"
	"cairn/inspect"
	"cairn/warmup"

	"github.com/spf13/cobra"
)

func warmupCommand() *cobra.Command {
	c := &cobra.Command{
		Use:     "warmup PATH…",
		Short:   "fetch the blocks of files (directories recursively) into their mount's disk cache",
		Example: "  cairn warmup /mnt/vol/models\n  cairn warmup /mnt/vol/a.bin /mnt/vol/b.bin --threads 8",
		Args:    cobra.ArbitraryArgs,
	}
	fs := c.Flags()
	threads := new(int)
	threadsFlag(fs, threads, 4, "files read at once")
	c.RunE = func(_ *cobra.Command, paths []string) error {
		if len(paths) == 0 {
			return fmt.Errorf("expected at least 1 argument, a path inside a cairn mount (see 'cairn warmup -h')")
		}
		if *threads < 1 {
			return fmt.Errorf("invalid --threads %d: use 1 or more", *threads)
		}
		targets := make([]inspect.Target, len(paths))
		channels := true
		for i, p := range paths {
			t, err := inspect.Locate(p)
			if err != nil {
				return err
			}
			targets[i] = t
			channels = channels && t.Control != ""
		}
		if channels {
			return warmupInMount(targets, paths, *threads)
		}
		// A mount of an older release: read through the mount.
		bar := newStatusLine()
		done, err := warmup.Files(context.Background(), paths, *threads, func(p warmup.Progress) {
			bar.show("warmup: %d files, %s", p.Files, humanBytes(uint64(p.Bytes)))
		})
		bar.done()
		if err != nil {
			return fmt.Errorf("warm up: %w (%d files read)", err, done.Files)
		}
		inform(os.Stdout, "warmed %d files (%s)", done.Files, humanBytes(uint64(done.Bytes)))
		return nil
	}
	return c
}

// warmupInMount warms each target in its mount's process, through the
// mount's control channel.
func warmupInMount(targets []inspect.Target, paths []string, threads int) error {
	var total control.Warmed
	bar := newStatusLine()
	for i, t := range targets {
		base := total
		req := control.Request{Op: control.OpWarmup, Shown: paths[i], Threads: threads}
		raw, err := callMount(t, req, func(raw json.RawMessage) {
			var w control.Warmed
			if json.Unmarshal(raw, &w) == nil {
				bar.show("warmup: %d files, %s", base.Files+w.Files, humanBytes(uint64(base.Bytes+w.Bytes)))
			}
		}, nil)
		var w control.Warmed
		if err == nil {
			err = json.Unmarshal(raw, &w)
		}
		if err != nil {
			bar.done()
			return fmt.Errorf("%w (%d files read before)", err, total.Files)
		}
		total.Files += w.Files
		total.Bytes += w.Bytes
	}
	bar.done()
	inform(os.Stdout, "warmed %d files (%s)", total.Files, humanBytes(uint64(total.Bytes)))
	return nil
}
