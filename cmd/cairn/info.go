package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"cairn/inspect"
	"cairn/volume"

	"github.com/spf13/cobra"
)

// infoOutput is what 'cairn info' prints for one path.
type infoOutput struct {
	Path  string `json:"path"`
	Mount string `json:"mount"`
	inspect.FileInfo
}

func infoCommand() *cobra.Command {
	c := &cobra.Command{
		Use:     "info PATH…",
		Short:   "show a path's inode and attributes, and a file's chunks, slices and objects, as JSON",
		Example: "  cairn info /mnt/vol/data/file.bin\n  cairn info /mnt/vol/a /mnt/vol/b",
		Args:    cobra.ArbitraryArgs,
	}
	c.RunE = func(_ *cobra.Command, paths []string) error {
		if len(paths) == 0 {
			return fmt.Errorf("expected at least 1 argument, a path inside a cairn mount (see 'cairn info -h')")
		}
		ctx := context.Background()
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		for _, p := range paths {
			t, vol, err := openMounted(ctx, p)
			if err != nil {
				return err
			}
			info, err := inspect.File(ctx, vol.Engine, t.Ino, int(vol.Format.BlockSize))
			vol.Close(ctx)
			if err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			if err := enc.Encode(infoOutput{Path: t.Path, Mount: t.MountPoint, FileInfo: info}); err != nil {
				return err
			}
		}
		return nil
	}
	return c
}

// openMounted finds the cairn mount holding path and opens its volume's
// metadata, as the mount reports it.
func openMounted(ctx context.Context, path string) (inspect.Target, *volume.Volume, error) {
	t, err := inspect.Locate(path)
	if err != nil {
		return t, nil, err
	}
	vol, err := volume.OpenMeta(ctx, t.MetaURL, volume.Options{})
	if err != nil {
		if t.Masked {
			err = fmt.Errorf("%w%s", err, inspect.PasswordHint)
		}
		return t, nil, err
	}
	return t, vol, nil
}
