package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"

	"cairn/meta"
	"cairn/volume"

	"github.com/spf13/cobra"
)

// quotaCommand is 'cairn quota set|get|list|delete|check': directory
// quotas, kept by the metadata engine (meta/quota.go).
func quotaCommand() *cobra.Command {
	c := &cobra.Command{
		Use:   "quota",
		Short: "limit the space and inodes of a directory tree: set, get, list, delete, check",
		Example: "  cairn quota set redis://localhost:6379/1 --path /projects/a --capacity 100G --inodes 1000000\n" +
			"  cairn quota list redis://localhost:6379/1\n  cairn quota check redis://localhost:6379/1 --path /projects/a --repair",
	}
	c.AddCommand(quotaSetCommand(), quotaGetCommand(), quotaListCommand(), quotaDeleteCommand(), quotaCheckCommand())
	return c
}

// openQuotaPath opens the volume at url and finds the directory path,
// which must be one.
func openQuotaPath(ctx context.Context, url, path string) (*volume.Volume, meta.Ino, error) {
	vol, err := volume.OpenMeta(ctx, url, volume.Options{})
	if err != nil {
		return nil, 0, err
	}
	ino, err := meta.ResolvePath(ctx, vol.Engine, path)
	if err != nil {
		vol.Close(ctx)
		return nil, 0, err
	}
	a, err := vol.Engine.GetAttr(ctx, ino)
	if err == nil && !a.IsDir() {
		err = fmt.Errorf("%s is not a directory: a quota limits a directory tree", path)
	}
	if err != nil {
		vol.Close(ctx)
		return nil, 0, err
	}
	return vol, ino, nil
}

// quotaOnPath gives c, a quota command on one directory, its --path flag
// and a RunE that checks its flags with check (nil: none) before opening
// anything, opens the volume, finds the directory and calls run.
func quotaOnPath(c *cobra.Command, check func() error, run func(ctx context.Context, cmd *cobra.Command, vol *volume.Volume, ino meta.Ino, path string) error) *cobra.Command {
	c.Args = exactArgs(1)
	path := c.Flags().String("path", "", "the directory, from the volume's root")
	c.RunE = func(cmd *cobra.Command, pos []string) error {
		if *path == "" {
			return errors.New("give the directory with --path")
		}
		if check != nil {
			if err := check(); err != nil {
				return err
			}
		}
		ctx := context.Background()
		vol, ino, err := openQuotaPath(ctx, pos[0], *path)
		if err != nil {
			return err
		}
		defer vol.Close(ctx)
		return run(ctx, cmd, vol, ino, *path)
	}
	return c
}

func quotaSetCommand() *cobra.Command {
	c := &cobra.Command{
		Use:     "set META-URL --path P [--capacity SIZE] [--inodes N]",
		Short:   "set or change the limits of a directory's quota (0: no limit); a new quota counts the tree first",
		Example: "  cairn quota set sqlite3:///var/lib/cairn/vol.db --path /projects/a --capacity 100G",
	}
	fs := c.Flags()
	var capacity byteSize
	fs.Var(&capacity, "capacity", "the most bytes the tree may hold (bytes, or with K, M, G, T, P)")
	inodes := fs.Int64("inodes", 0, "the most inodes the tree may hold")
	check := func() error {
		switch {
		case !fs.Changed("capacity") && !fs.Changed("inodes"):
			return errors.New("give --capacity, --inodes or both")
		case *inodes < 0:
			return fmt.Errorf("invalid --inodes %d: use 0 (no limit) or more", *inodes)
		case uint64(capacity) > 1<<62:
			return fmt.Errorf("--capacity %d is too large", capacity)
		}
		return nil
	}
	return quotaOnPath(c, check, func(ctx context.Context, cmd *cobra.Command, vol *volume.Volume, ino meta.Ino, path string) error {
		maxSpace, maxInodes := int64(capacity), *inodes
		if old, err := meta.GetQuota(ctx, vol.Engine, ino); err == nil {
			if !fs.Changed("capacity") {
				maxSpace = old.MaxSpace
			}
			if !fs.Changed("inodes") {
				maxInodes = old.MaxInodes
			}
		} else if !errors.Is(err, meta.ErrNotFound) {
			return fmt.Errorf("read the quota of %s: %w", path, err)
		}
		return meta.WriteOutsideMount(ctx, vol.Engine, meta.UsageWrite, func() error {
			q, err := meta.SetQuota(ctx, vol.Engine, ino, maxSpace, maxInodes)
			if err != nil {
				return fmt.Errorf("set the quota of %s: %w", path, err)
			}
			printQuota(cmd.OutOrStdout(), path, q)
			return nil
		})
	})
}

func quotaGetCommand() *cobra.Command {
	c := &cobra.Command{
		Use:     "get META-URL --path P",
		Short:   "show a directory's quota: limits and usage",
		Example: "  cairn quota get sqlite3:///var/lib/cairn/vol.db --path /projects/a",
	}
	return quotaOnPath(c, nil, func(ctx context.Context, cmd *cobra.Command, vol *volume.Volume, ino meta.Ino, path string) error {
		q, err := meta.GetQuota(ctx, vol.Engine, ino)
		if errors.Is(err, meta.ErrNotFound) {
			return fmt.Errorf("%s has no quota (set one with 'cairn quota set')", path)
		}
		if err != nil {
			return fmt.Errorf("read the quota of %s: %w", path, err)
		}
		printQuota(cmd.OutOrStdout(), path, q)
		return nil
	})
}

func quotaListCommand() *cobra.Command {
	c := &cobra.Command{
		Use:     "list META-URL",
		Short:   "list every directory quota with its usage and limits",
		Example: "  cairn quota list sqlite3:///var/lib/cairn/vol.db",
		Args:    exactArgs(1),
	}
	c.RunE = func(cmd *cobra.Command, pos []string) error {
		ctx := context.Background()
		vol, err := volume.OpenMeta(ctx, pos[0], volume.Options{})
		if err != nil {
			return err
		}
		defer vol.Close(ctx)
		return listQuotas(ctx, cmd.OutOrStdout(), vol.Engine)
	}
	return c
}

// pathQuota is one quota and the path of its directory.
type pathQuota struct {
	path string
	q    meta.Quota
}

// quotasByPath returns every quota with its directory's path, by path.
func quotasByPath(ctx context.Context, e meta.Engine) ([]pathQuota, error) {
	all, err := meta.ListQuotas(ctx, e)
	if err != nil {
		return nil, fmt.Errorf("list quotas: %w", err)
	}
	out := make([]pathQuota, 0, len(all))
	for ino, q := range all {
		p, err := meta.PathOf(ctx, e, ino)
		if err != nil {
			p = fmt.Sprintf("(inode %d, removed)", ino)
		}
		out = append(out, pathQuota{p, q})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out, nil
}

// listQuotas prints every quota, by path.
func listQuotas(ctx context.Context, out io.Writer, e meta.Engine) error {
	all, err := quotasByPath(ctx, e)
	if err != nil {
		return err
	}
	for _, l := range all {
		printQuota(out, l.path, l.q)
	}
	return nil
}

func quotaDeleteCommand() *cobra.Command {
	c := &cobra.Command{
		Use:     "delete META-URL --path P",
		Short:   "remove a directory's quota",
		Example: "  cairn quota delete sqlite3:///var/lib/cairn/vol.db --path /projects/a",
	}
	return quotaOnPath(c, nil, func(ctx context.Context, cmd *cobra.Command, vol *volume.Volume, ino meta.Ino, path string) error {
		return meta.WriteOutsideMount(ctx, vol.Engine, meta.UsageWrite, func() error {
			err := meta.DeleteQuota(ctx, vol.Engine, ino)
			if errors.Is(err, meta.ErrNotFound) {
				return fmt.Errorf("%s has no quota", path)
			}
			if err != nil {
				return fmt.Errorf("delete the quota of %s: %w", path, err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: quota deleted\n", path)
			return nil
		})
	})
}

func quotaCheckCommand() *cobra.Command {
	c := &cobra.Command{
		Use:     "check META-URL --path P [--repair]",
		Short:   "count a quota's tree in full and compare with its recorded usage; --repair writes the counted figures",
		Example: "  cairn quota check sqlite3:///var/lib/cairn/vol.db --path /projects/a --repair",
	}
	repair := c.Flags().Bool("repair", false, "write the counted usage into the quota and the directories' statistics")
	return quotaOnPath(c, nil, func(ctx context.Context, cmd *cobra.Command, vol *volume.Volume, ino meta.Ino, path string) error {
		var recorded meta.Quota
		var counted meta.DirStat
		check := func() (err error) {
			recorded, counted, err = meta.CheckQuota(ctx, vol.Engine, ino, *repair)
			return err
		}
		var err error
		if *repair {
			err = meta.WriteOutsideMount(ctx, vol.Engine, meta.UsageWrite, check)
		} else {
			err = check()
		}
		if errors.Is(err, meta.ErrNotFound) {
			return fmt.Errorf("%s has no quota", path)
		}
		if err != nil {
			return fmt.Errorf("check the quota of %s: %w", path, err)
		}
		out := cmd.OutOrStdout()
		if recorded.Space == counted.Space && recorded.Inodes == counted.Inodes {
			fmt.Fprintf(out, "%s: usage is right: %s and %d inodes\n", path, humanBytes(uint64(max(counted.Space, 0))), counted.Inodes)
			return nil
		}
		fmt.Fprintf(out, "%s: recorded %d bytes and %d inodes, counted %d bytes and %d inodes\n",
			path, recorded.Space, recorded.Inodes, counted.Space, counted.Inodes)
		if *repair {
			fmt.Fprintf(out, "%s: repaired\n", path)
			return nil
		}
		return fmt.Errorf("the quota of %s is off; fix it with --repair", path)
	})
}

// printQuota writes one quota's usage and limits on one line.
func printQuota(out io.Writer, path string, q meta.Quota) {
	limit := func(n int64, bytes bool) string {
		switch {
		case n == 0:
			return "unlimited"
		case bytes:
			return humanBytes(uint64(n))
		}
		return fmt.Sprint(n)
	}
	fmt.Fprintf(out, "%s: space %s of %s, inodes %d of %s\n", path,
		humanBytes(uint64(max(q.Space, 0))), limit(q.MaxSpace, true), q.Inodes, limit(q.MaxInodes, false))
}
