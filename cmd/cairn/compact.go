package main

import (
	"context"
	"fmt"
	"os"

	"cairn/inspect"
	"cairn/vfs"
	"cairn/volume"

	"github.com/spf13/cobra"
)

func compactCommand() *cobra.Command {
	c := &cobra.Command{
		Use:     "compact PATH…",
		Short:   "merge now the slices of every file at or under PATH (inside a cairn mount) into one per chunk",
		Example: "  cairn compact /mnt/vol/logs",
		Args:    cobra.ArbitraryArgs,
	}
	fs := c.Flags()
	var store storeFlags
	store.register(fs)
	c.RunE = func(_ *cobra.Command, paths []string) error {
		var err error
		if len(paths) == 0 {
			return fmt.Errorf("expected at least 1 argument, a path inside a cairn mount (see 'cairn compact -h')")
		}
		targets := make([]inspect.Target, len(paths))
		for i, p := range paths {
			if targets[i], err = inspect.Locate(p); err != nil {
				return err
			}
		}
		ctx := context.Background()
		var total vfs.CompactStats
		bar := newStatusLine()
		for _, t := range targets {
			vol, err := volume.Open(ctx, t.MetaURL, volume.Options{Store: store.options()})
			if err != nil {
				if t.Masked {
					err = fmt.Errorf("%w%s", err, inspect.PasswordHint)
				}
				return err
			}
			base := total
			st, err := vol.VFS.CompactTree(ctx, t.Ino, 2, func(st vfs.CompactStats) {
				bar.show("compact %s: %d files, %d chunks merged", t.Path, base.Files+st.Files, base.Chunks+st.Chunks)
			})
			if err == nil {
				// The merged slices' blocks go now, not at the next mount's
				// background pass.
				_, err = vol.VFS.CollectGarbage(ctx)
			}
			cerr := vol.Close(ctx)
			total.Files += st.Files
			total.Chunks += st.Chunks
			total.Slices += st.Slices
			total.Changed += st.Changed
			if err == nil {
				err = cerr
			}
			if err != nil {
				bar.done()
				return fmt.Errorf("compact %s: %w", t.Path, err)
			}
		}
		bar.done()
		printCompacted(total)
		return nil
	}
	return c
}

// printCompacted says what a compaction did.
func printCompacted(st vfs.CompactStats) {
	inform(os.Stdout, "compacted %d files: %d chunks merged, %d slices into %d", st.Files, st.Chunks, st.Slices, st.Chunks)
	if st.Changed > 0 {
		inform(os.Stdout, "%d chunks were written to meanwhile and are left as they are", st.Changed)
	}
}
