package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"cairn/control"
	"cairn/inspect"
	"cairn/vfs"
	"cairn/volume"

	"github.com/spf13/cobra"
)

func compactCommand() *cobra.Command {
	c := &cobra.Command{
		Use:     "compact PATH…",
		Short:   "merge now the slices of every file at or under PATH (inside a cairn mount) into one per chunk, in the mount's process",
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
		var total compactTotal
		bar := newStatusLine()
		for _, t := range targets {
			if t.Control != "" {
				if fs.Changed("access-key") || fs.Changed("secret-key") {
					return fmt.Errorf("%s: compact runs inside the mount, which uses its own storage credentials: drop --access-key and --secret-key", t.Path)
				}
				base := total
				raw, err := callMount(t, control.Request{Op: control.OpCompact, Shown: t.Path}, func(raw json.RawMessage) {
					var st vfs.CompactStats
					if json.Unmarshal(raw, &st) == nil {
						bar.show("compact %s: %d files, %d chunks merged", t.Path, base.Files+st.Files, base.Chunks+st.Chunks)
					}
				}, nil)
				var st vfs.CompactStats
				if err == nil {
					err = json.Unmarshal(raw, &st)
				}
				if err != nil {
					bar.done()
					return err
				}
				total.add(st)
				continue
			}
			if err := openBeside(t, "compact"); err != nil {
				bar.done()
				return err
			}
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
			total.add(st)
			if err == nil {
				err = cerr
			}
			if err != nil {
				bar.done()
				return fmt.Errorf("compact %s: %w", t.Path, err)
			}
		}
		bar.done()
		printCompacted(vfs.CompactStats(total))
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

// compactTotal adds up the compactions of several PATHs.
type compactTotal vfs.CompactStats

func (t *compactTotal) add(st vfs.CompactStats) {
	t.Files += st.Files
	t.Chunks += st.Chunks
	t.Slices += st.Slices
	t.Changed += st.Changed
}
