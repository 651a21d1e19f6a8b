package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"

	"cairn/control"
	"cairn/inspect"
	"cairn/meta"
	"cairn/volume"

	"github.com/spf13/cobra"
)

func rmrCommand() *cobra.Command {
	c := &cobra.Command{
		Use:     "rmr PATH…",
		Short:   "remove trees inside a mount through the metadata engine, far faster than rm -rf; into the trash when the volume keeps one",
		Example: "  cairn rmr /mnt/vol/build\n  cairn rmr /mnt/vol/a /mnt/vol/b --threads 128",
		Args:    cobra.ArbitraryArgs,
	}
	threads := new(int)
	threadsFlag(c.Flags(), threads, 64, "removals in flight at once when the trash is off")
	c.RunE = func(_ *cobra.Command, pos []string) error { return runRmr(pos, *threads) }
	return c
}

func runRmr(pos []string, threads int) error {
	if len(pos) == 0 {
		return fmt.Errorf("rmr needs a PATH inside a cairn mount")
	}
	if threads < 1 {
		return fmt.Errorf("invalid --threads %d: use 1 or more", threads)
	}
	ctx := context.Background()
	for _, path := range pos {
		if err := rmr(ctx, path, threads); err != nil {
			return err
		}
	}
	return nil
}

// rmr removes one tree, in the mount's process when it has a control
// channel (the mount shows the removal at once).
func rmr(ctx context.Context, path string, workers int) error {
	clean := filepath.Clean(path)
	t, err := inspect.Locate(clean)
	if err != nil {
		return err
	}
	if t.Control != "" {
		var removed atomic.Int64
		bar := startProgress("removed", func() (uint64, uint64) { return uint64(removed.Load()), 0 })
		result, err := callMount(t, control.Request{Op: control.OpRmr, Shown: path, Threads: workers}, countInto(&removed), nil)
		countInto(&removed)(result)
		bar.finish()
		return err
	}
	if err := openBeside(t, "rmr"); err != nil {
		return err
	}
	// A mount without a control channel learns of the removal when its
	// cached names expire (--entry-cache, a second by default).
	if t.Path == t.MountPoint {
		return fmt.Errorf("%s is the root of its mount: remove what is in it instead", path)
	}
	if t.Ino == meta.TrashIno {
		return fmt.Errorf("%s is the trash, which stays: remove its hour folders, or empty it with 'cairn config META-URL --trash-days 0'", path)
	}
	dir, err := inspect.Locate(filepath.Dir(t.Path))
	if err != nil {
		return err
	}
	name := filepath.Base(t.Path)
	return changeBeside(ctx, t, "cairn rmr", func(client *meta.Client) error {
		cred := callerCred()
		a, err := client.GetAttr(ctx, t.Ino)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		moved, err := client.MoveToTrash(ctx, cred, dir.Ino, name)
		switch {
		case err != nil:
			return fmt.Errorf("move %s into the trash: %w", path, err)
		case moved:
			return nil
		case !a.IsDir():
			if _, _, err := client.Unlink(ctx, cred, dir.Ino, name); err != nil {
				return fmt.Errorf("remove %s: %w", path, err)
			}
			return nil
		}
		var removed atomic.Int64
		bar := startProgress("removed", func() (uint64, uint64) { return uint64(removed.Load()), 0 })
		err = client.RemoveTree(ctx, cred, dir.Ino, name, t.Ino, workers, &removed)
		bar.finish()
		if err != nil {
			return fmt.Errorf("remove %s: %w", path, err)
		}
		return nil
	})
}

// changeBeside runs change, a command's change to the tree of mount
// target t, with a client session of the command's own: the way of a
// mount without a control channel. That client follows no migration and
// writes no change log, so the change goes through
// meta.WriteOutsideMount: refused while a migration is under way, and
// an error when one began meanwhile.
func changeBeside(ctx context.Context, t inspect.Target, who string, change func(*meta.Client) error) error {
	vol, err := openTarget(ctx, t)
	if err != nil {
		return err
	}
	defer vol.Close(ctx)
	return changeOutside(ctx, vol, who, change)
}

// changeOutside runs change on vol with a client session of the
// command's own, through meta.WriteOutsideMount (see changeBeside).
func changeOutside(ctx context.Context, vol *volume.Volume, who string, change func(*meta.Client) error) error {
	return meta.WriteOutsideMount(ctx, vol.Engine, meta.VolumeWrite, func() error {
		client, err := startClient(ctx, vol, who)
		if err != nil {
			return err
		}
		defer client.Close(ctx)
		return change(client)
	})
}

// openTarget opens the volume of mount target t, without a client.
func openTarget(ctx context.Context, t inspect.Target) (*volume.Volume, error) {
	vol, err := volume.OpenMeta(ctx, t.MetaURL, volume.Options{})
	if err != nil && t.Masked {
		err = fmt.Errorf("%w%s", err, inspect.PasswordHint)
	}
	return vol, err
}

// startClient starts a client session on vol for a command.
func startClient(ctx context.Context, vol *volume.Volume, who string) (*meta.Client, error) {
	host, _ := os.Hostname()
	client := meta.NewClient(vol.Engine, meta.ClientConfig{Session: meta.SessionInfo{Hostname: host, PID: os.Getpid(), Version: who}})
	if err := client.Start(ctx); err != nil {
		return nil, fmt.Errorf("register with the volume at %s: %w", vol.URL, err)
	}
	return client, nil
}

// callerCred is the identity of the user running the command, whose
// permissions apply to what it changes.
func callerCred() meta.Cred {
	c := meta.Cred{Uid: uint32(os.Getuid()), Gid: uint32(os.Getgid())}
	groups, err := os.Getgroups()
	if err == nil {
		for _, g := range groups {
			c.Gids = append(c.Gids, uint32(g))
		}
	}
	return c
}
