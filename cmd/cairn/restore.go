package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"cairn/control"
	"cairn/inspect"
	"cairn/meta"
	"cairn/volume"

	"github.com/spf13/cobra"
)

func restoreCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "restore [META-URL] PATH…",
		Short: "put files and directories from the trash back where they were deleted from; PATH is .trash/HOUR or .trash/HOUR/ENTRY, inside a mount or, after META-URL, from the volume's root",
		Example: "  cairn restore /mnt/vol/.trash/2026-11-24-05\n" +
			"  cairn restore sqlite3:///var/lib/cairn/vol.db .trash/2026-11-24-05/1-42-report.pdf",
		Args: cobra.ArbitraryArgs,
		RunE: func(_ *cobra.Command, pos []string) error { return runRestore(pos) },
	}
}

func runRestore(pos []string) error {
	var err error
	ctx := context.Background()
	var (
		vol    *volume.Volume
		places []trashPath
		given  []string // after a META-URL: found once the restore may go on
	)
	if len(pos) > 0 && strings.Contains(pos[0], "://") {
		if len(pos) == 1 {
			return fmt.Errorf("restore needs a PATH in the trash after the META-URL, e.g. .trash/2026-01-02-03")
		}
		for _, p := range pos[1:] {
			if _, err := trashPathParts(p); err != nil {
				return err
			}
		}
		if vol, err = volume.OpenMeta(ctx, pos[0], volume.Options{}); err != nil {
			return err
		}
		defer vol.Close(ctx)
		given = pos[1:]
	} else {
		if len(pos) == 0 {
			return fmt.Errorf("restore needs a PATH in a mount's .trash, or META-URL and a PATH from the volume's root")
		}
		var first inspect.Target
		for i, p := range pos {
			tp, t, err := locateTrashPath(p)
			if err != nil {
				return err
			}
			if i == 0 {
				first = t
			} else if t.MountPoint != first.MountPoint {
				return fmt.Errorf("%s is on another mount than %s: restore one volume at a time", p, pos[0])
			}
			places = append(places, tp)
		}
		if first.Control != "" {
			return restoreInMount(first, places)
		}
		if err := openBeside(first, "restore"); err != nil {
			return err
		}
		if vol, err = openTarget(ctx, first); err != nil {
			return err
		}
		defer vol.Close(ctx)
	}
	// The command's client does not follow a migration: what it restores
	// is in no change log.
	return changeOutside(ctx, vol, "cairn restore", func(client *meta.Client) error {
		for _, p := range given {
			tp, err := resolveTrashPath(ctx, vol.Engine, p)
			if err != nil {
				return err
			}
			places = append(places, tp)
		}
		return restorePlaces(ctx, client, places)
	})
}

// trashPath is a PATH given to restore: an hour folder, or an entry of one.
type trashPath struct {
	given  string
	folder meta.Ino
	entry  string // "": the whole folder
}

// resolveTrashPath finds .trash/HOUR[/ENTRY], given from the volume's root.
func resolveTrashPath(ctx context.Context, eng meta.Engine, path string) (trashPath, error) {
	parts, err := trashPathParts(path)
	if err != nil {
		return trashPath{}, err
	}
	folder, _, err := eng.Lookup(ctx, meta.TrashIno, parts[1])
	if err != nil {
		return trashPath{}, fmt.Errorf("%s: no such folder in the trash (%w)", path, err)
	}
	tp := trashPath{given: path, folder: folder}
	if len(parts) == 3 {
		tp.entry = parts[2]
	}
	return tp, nil
}

// trashPathParts splits .trash/HOUR[/ENTRY], given from the volume's root,
// refusing any other path before a database is opened.
func trashPathParts(path string) ([]string, error) {
	parts := strings.Split(strings.Trim(filepath.Clean("/"+path), "/"), "/")
	if len(parts) < 2 || len(parts) > 3 || parts[0] != meta.TrashName {
		return nil, fmt.Errorf("%s: %w", path, meta.ErrNotInTrash)
	}
	return parts, nil
}

// locateTrashPath finds a PATH inside a mount's trash.
func locateTrashPath(path string) (trashPath, inspect.Target, error) {
	t, err := inspect.Locate(filepath.Clean(path))
	if err != nil {
		return trashPath{}, t, err
	}
	if meta.IsTrashIno(t.Ino) && t.Ino != meta.TrashIno {
		return trashPath{given: path, folder: t.Ino}, t, nil
	}
	dir, err := inspect.Locate(filepath.Dir(t.Path))
	if err != nil {
		return trashPath{}, t, err
	}
	if !meta.IsTrashIno(dir.Ino) || dir.Ino == meta.TrashIno {
		return trashPath{}, t, fmt.Errorf("%s: %w", path, meta.ErrNotInTrash)
	}
	return trashPath{given: path, folder: dir.Ino, entry: filepath.Base(t.Path)}, t, nil
}

// restorePlaces restores every place, printing what it restored and what
// it skipped; skipped entries make the command fail once it is done.
func restorePlaces(ctx context.Context, client *meta.Client, places []trashPath) error {
	r := client.NewTrashRestorer()
	var restored, skipped atomic.Int64
	r.Restored = func(entry string, parent meta.Ino, name string) {
		restored.Add(1)
		inform(os.Stdout, "restored %s as %q in directory inode %d", entry, name, parent)
	}
	r.Skipped = func(entry, reason string) {
		skipped.Add(1)
		warn(os.Stdout, "skipped %s: %s", entry, reason)
	}
	bar := startProgress("restored", func() (uint64, uint64) { return uint64(restored.Load()), 0 })
	var err error
	for _, p := range places {
		if p.entry == "" {
			err = r.RestoreFolder(ctx, p.folder)
		} else {
			err = r.Restore(ctx, p.folder, p.entry)
		}
		if errors.Is(err, meta.ErrNotFound) {
			err = fmt.Errorf("%s: not in the trash (restored already, or purged)", p.given)
		}
		if err != nil {
			break
		}
	}
	bar.finish()
	if err != nil {
		return err
	}
	if n := skipped.Load(); n > 0 {
		return fmt.Errorf("skipped %d entries (listed above); they stay in the trash", n)
	}
	return nil
}

// restoreInMount restores places, all on the mount of t, in the mount's
// process, printing what it restored and what it skipped as restorePlaces
// does.
func restoreInMount(t inspect.Target, places []trashPath) error {
	var restored, skipped atomic.Int64
	bar := startProgress("restored", func() (uint64, uint64) { return uint64(restored.Load()), 0 })
	defer bar.finish()
	base := int64(0)
	for _, p := range places {
		pt, err := inspect.Locate(filepath.Clean(p.given))
		if err != nil {
			return err
		}
		req := control.Request{Op: control.OpRestore, Shown: p.given}
		if req.Path, err = pt.InMount(); err != nil {
			return err
		}
		progress := func(raw json.RawMessage) {
			var c control.Count
			if json.Unmarshal(raw, &c) == nil {
				restored.Store(base + c.Inodes)
			}
		}
		raw, err := callMount(t, req, progress, func(line string, warning bool) {
			if warning {
				warn(os.Stdout, "%s", line)
			} else {
				inform(os.Stdout, "%s", line)
			}
		})
		if err != nil {
			return err
		}
		var r control.RestoreResult
		if err := json.Unmarshal(raw, &r); err != nil {
			return fmt.Errorf("the mount's answer to restore %s: %w", p.given, err)
		}
		base += r.Restored
		restored.Store(base)
		skipped.Add(r.Skipped)
	}
	if n := skipped.Load(); n > 0 {
		return fmt.Errorf("skipped %d entries (listed above); they stay in the trash", n)
	}
	return nil
}
