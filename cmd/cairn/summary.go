package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"cairn/inspect"

	"github.com/spf13/cobra"
)

// summaryOutput is what 'cairn summary' prints.
type summaryOutput struct {
	Path  string `json:"path"`
	Mount string `json:"mount"`
	inspect.Summary
}

func summaryCommand() *cobra.Command {
	c := &cobra.Command{
		Use:     "summary PATH",
		Short:   "size, files and directories of a tree and its biggest entries, read from the engine, as JSON",
		Example: "  cairn summary /mnt/vol\n  cairn summary /mnt/vol/projects --top 20 --threads 32",
		Args:    exactArgs(1),
	}
	fs := c.Flags()
	top := fs.Int("top", 10, "how many of the biggest entries directly under PATH to list")
	threads := new(int)
	threadsFlag(fs, threads, 16, "directories read at once")
	c.RunE = func(_ *cobra.Command, pos []string) error {
		if *top < 0 || *threads < 1 {
			return fmt.Errorf("invalid --top %d or --threads %d: use --top 0 or more and --threads 1 or more", *top, *threads)
		}
		ctx := context.Background()
		t, vol, err := openMounted(ctx, pos[0])
		if err != nil {
			return err
		}
		defer vol.Close(ctx)
		bar := newStatusLine()
		s, err := inspect.Summarize(ctx, vol.Engine, t.Ino, *top, *threads, func(s inspect.Summary) {
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
	return c
}
