package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"cairn/inspect"
)

func summaryCommand() command {
	return command{
		usage:   "summary PATH [--top N] [--workers N]",
		summary: "size, files and directories of a tree and its biggest entries, read from the engine, as JSON",
		run:     runSummary,
	}
}

// summaryOutput is what 'cairn summary' prints.
type summaryOutput struct {
	Path  string `json:"path"`
	Mount string `json:"mount"`
	inspect.Summary
}

func runSummary(args []string) error {
	fs := flag.NewFlagSet("summary", flag.ContinueOnError)
	top := fs.Int("top", 10, "how many of the biggest entries directly under PATH to list")
	workers := fs.Int("workers", 16, "directories read at once")
	pos, err := parseArgs(fs, args, 1)
	if err != nil {
		return err
	}
	if *top < 0 || *workers < 1 {
		return fmt.Errorf("invalid --top %d or --workers %d: use --top 0 or more and --workers 1 or more", *top, *workers)
	}
	ctx := context.Background()
	t, vol, err := openMounted(ctx, pos[0])
	if err != nil {
		return err
	}
	defer vol.Close(ctx)
	bar := newStatusLine()
	s, err := inspect.Summarize(ctx, vol.Engine, t.Ino, *top, *workers, func(s inspect.Summary) {
		bar.show("summary %s: %d files, %d directories, %s", pos[0], s.Files, s.Directories, humanBytes(s.Size))
	})
	bar.done()
	if err != nil {
		return fmt.Errorf("%s: %w", pos[0], err)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(summaryOutput{Path: t.Path, Mount: t.MountPoint, Summary: s})
}
