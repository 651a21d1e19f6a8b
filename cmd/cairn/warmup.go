package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"cairn/inspect"
	"cairn/warmup"
)

func warmupCommand() command {
	return command{
		usage:   "warmup PATH… [--workers N]",
		summary: "fetch the blocks of files (directories recursively) into their mount's disk cache",
		run:     runWarmup,
	}
}

func runWarmup(args []string) error {
	fs := flag.NewFlagSet("warmup", flag.ContinueOnError)
	workers := fs.Int("workers", 4, "files read at once")
	paths, err := parseArgs(fs, args, -1)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return fmt.Errorf("expected at least 1 argument, a path inside a cairn mount (see 'cairn warmup -h')")
	}
	if *workers < 1 {
		return fmt.Errorf("invalid --workers %d: use 1 or more", *workers)
	}
	for _, p := range paths {
		if _, err := inspect.Locate(p); err != nil {
			return err
		}
	}
	bar := newStatusLine()
	done, err := warmup.Files(context.Background(), paths, *workers, func(p warmup.Progress) {
		bar.show("warmup: %d files, %s", p.Files, humanBytes(uint64(p.Bytes)))
	})
	bar.done()
	if err != nil {
		return fmt.Errorf("warm up: %w (%d files read)", err, done.Files)
	}
	fmt.Fprintf(os.Stdout, "warmed %d files (%s)\n", done.Files, humanBytes(uint64(done.Bytes)))
	return nil
}
