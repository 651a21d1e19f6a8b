package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"cairn/control"
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
		Short:   "show a path's inode and attributes, and a file's chunks, slices and objects, as JSON (asked of the mount's process)",
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
			t, err := inspect.Locate(p)
			if err != nil {
				return err
			}
			var info inspect.FileInfo
			if t.Control != "" {
				raw, err := callMount(t, control.Request{Op: control.OpInfo, Shown: p}, nil, nil)
				if err == nil {
					err = json.Unmarshal(raw, &info)
				}
				if err != nil {
					return err
				}
			} else if info, err = infoBeside(ctx, t); err != nil {
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

// infoBeside describes t, on a mount without a control channel, through
// the engine opened beside the mount.
func infoBeside(ctx context.Context, t inspect.Target) (inspect.FileInfo, error) {
	vol, err := openMounted(ctx, t, "info")
	if err != nil {
		return inspect.FileInfo{}, err
	}
	defer vol.Close(ctx)
	return inspect.File(ctx, vol.Engine, t.Ino, int(vol.Format.BlockSize))
}

// openMounted opens the metadata of the volume of t's mount, which has no
// control channel, as the mount reports it.
func openMounted(ctx context.Context, t inspect.Target, command string) (*volume.Volume, error) {
	if err := openBeside(t, command); err != nil {
		return nil, err
	}
	vol, err := volume.OpenMeta(ctx, t.MetaURL, volume.Options{})
	if err != nil {
		if t.Masked {
			err = fmt.Errorf("%w%s", err, inspect.PasswordHint)
		}
		return nil, err
	}
	return vol, nil
}
