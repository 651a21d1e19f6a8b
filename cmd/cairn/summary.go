package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"cairn/control"
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
		Short:   "space, files and directories of a tree and its biggest entries, from the directory statistics (or counted) by the mount's process, as JSON",
		Example: "  cairn summary /mnt/vol\n  cairn summary /mnt/vol/projects --top 20 --threads 32\n  cairn summary /mnt/vol/projects --count",
		Args:    exactArgs(1),
	}
	fs := c.Flags()
	top := fs.Int("top", 10, "how many of the biggest entries directly under PATH to list")
	count := fs.Bool("count", false, "read every directory's entries even where the engine keeps directory statistics: exact lengths (size), at the cost of a full walk")
	threads := new(int)
	threadsFlag(fs, threads, 16, "directories read at once")
	c.RunE = func(_ *cobra.Command, pos []string) error {
		if *top < 0 || *threads < 1 {
			return fmt.Errorf("invalid --top %d or --threads %d: use --top 0 or more and --threads 1 or more", *top, *threads)
		}
		t, err := inspect.Locate(pos[0])
		if err != nil {
			return err
		}
		bar := newStatusLine()
		report := func(s inspect.Summary) {
			bar.show("summary %s: %d files, %d directories, %s", pos[0], s.Files, s.Directories, humanBytes(s.Space))
		}
		var s inspect.Summary
		if t.Control != "" {
			var raw json.RawMessage
			req := control.Request{Op: control.OpSummary, Shown: pos[0], Top: *top, Threads: *threads, Count: *count}
			raw, err = callMount(t, req, func(raw json.RawMessage) {
				var s inspect.Summary
				if json.Unmarshal(raw, &s) == nil {
					report(s)
				}
			}, nil)
			if err == nil {
				err = json.Unmarshal(raw, &s)
			}
		} else {
			s, err = summaryBeside(t, inspect.SummaryOptions{Top: *top, Workers: *threads, Count: *count, Report: report})
			if err != nil {
				err = fmt.Errorf("%s: %w", pos[0], err)
			}
		}
		bar.done()
		if err != nil {
			return err
		}
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(summaryOutput{Path: t.Path, Mount: t.MountPoint, Summary: s})
	}
	return c
}

// summaryBeside summarizes t, on a mount without a control channel,
// through the engine opened beside the mount.
func summaryBeside(t inspect.Target, opt inspect.SummaryOptions) (inspect.Summary, error) {
	ctx := context.Background()
	vol, err := openMounted(ctx, t, "summary")
	if err != nil {
		return inspect.Summary{}, err
	}
	defer vol.Close(ctx)
	return inspect.Summarize(ctx, vol.Engine, t.Ino, opt)
}
