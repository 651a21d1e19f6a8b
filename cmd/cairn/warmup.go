package main

import (
	"context"
	"fmt"
	"os"

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
		for _, p := range paths {
			if _, err := inspect.Locate(p); err != nil {
				return err
			}
		}
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
