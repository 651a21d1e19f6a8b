package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"

	"cairn/control"
	"cairn/inspect"
	"cairn/meta"

	"github.com/spf13/cobra"
)

func cloneCommand() *cobra.Command {
	c := &cobra.Command{
		Use:     "clone SRC DST",
		Short:   "copy a file or a tree inside a mount copy-on-write: metadata only, the copy shares the stored blocks",
		Example: "  cairn clone /mnt/vol/dataset /mnt/vol/dataset-v2\n  cairn clone /mnt/vol/ckpt/model.bin /mnt/vol/ckpt/model-keep.bin --preserve",
		Args:    exactArgs(2),
	}
	preserve := c.Flags().Bool("preserve", false, "keep owners, modes, times and extended attributes (otherwise the caller owns the copy)")
	c.RunE = func(_ *cobra.Command, pos []string) error {
		return cloneTree(context.Background(), pos[0], pos[1], *preserve)
	}
	return c
}

// cloneTree copies SRC to DST, in the process of their mount when it has
// a control channel (the mount shows the copy at once), else through the
// metadata engine, when the mount shows the copy unless it looked DST's
// name up within its --entry-cache before.
func cloneTree(ctx context.Context, srcPath, dstPath string, preserve bool) error {
	src, err := inspect.Locate(filepath.Clean(srcPath))
	if err != nil {
		return err
	}
	if src.Path == src.MountPoint {
		return fmt.Errorf("%s is the root of its mount: clone what is in it instead", srcPath)
	}
	if src.Ino == meta.TrashIno {
		return fmt.Errorf("%s is the trash: clone what is in it instead", srcPath)
	}
	dstAbs, err := filepath.Abs(dstPath)
	if err != nil {
		return fmt.Errorf("%s: %w", dstPath, err)
	}
	if _, err := os.Lstat(dstAbs); err == nil {
		return fmt.Errorf("%s already exists: clone to a new name", dstPath)
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%s: %w", dstPath, err)
	}
	dir, err := inspect.Locate(filepath.Dir(dstAbs))
	if err != nil {
		return fmt.Errorf("the directory of %s: %w", dstPath, err)
	}
	if dir.MountPoint != src.MountPoint {
		return fmt.Errorf("%s is on the mount %s and %s on %s: a clone stays inside one mount", srcPath, src.MountPoint, dstPath, dir.MountPoint)
	}
	if src.Control != "" {
		target, err := inspect.InMount(dstAbs, src.MountPoint)
		if err != nil {
			return err
		}
		var cloned atomic.Int64
		bar := startProgress("cloned", func() (uint64, uint64) { return uint64(cloned.Load()), 0 })
		req := control.Request{Op: control.OpClone, Shown: srcPath, Target: target, TargetShown: dstPath, Preserve: preserve}
		result, err := callMount(src, req, countInto(&cloned), nil)
		countInto(&cloned)(result)
		bar.finish()
		return err
	}
	if err := openBeside(src, "clone"); err != nil {
		return err
	}
	return changeBeside(ctx, src, "cairn clone", func(client *meta.Client) error {
		var cloned atomic.Int64
		bar := startProgress("cloned", func() (uint64, uint64) { return uint64(cloned.Load()), 0 })
		_, err := client.CloneTree(ctx, callerCred(), src.Ino, dir.Ino, filepath.Base(dstAbs), preserve, &cloned)
		bar.finish()
		if err != nil {
			return fmt.Errorf("clone %s to %s: %w", srcPath, dstPath, err)
		}
		return nil
	})
}
