package fsck

import (
	"context"
	"errors"
	"fmt"

	"cairn/meta"
)

// LostFound is the directory at the root where Repair moves files that
// lost data.
const LostFound = "lost+found"

// Repaired counts what Repair fixed.
type Repaired struct {
	LinkCounts int
	Usage      bool
	Moved      int // files moved to lost+found
}

// Repair fixes the problems of a report that can be fixed without
// guessing: link counts and the usage counters (by the difference Check
// found, meta.Repairer), and files with missing objects, which it moves
// into LostFound under "INODE-NAME" (their data stays as it is: what is
// missing reads as an error). A file whose entry changed since Check is
// left where it is. The other problems need a person.
func Repair(ctx context.Context, eng meta.Engine, problems []Problem) (Repaired, error) {
	var done Repaired
	repairer, canRepair := meta.Capability[meta.Repairer](eng)
	var lostFound meta.Ino
	for _, p := range problems {
		var err error
		switch {
		case !p.Repairable():
			continue
		case (p.Kind == WrongNlink || p.Kind == WrongUsage) && !canRepair:
			return done, fmt.Errorf("the %s engine cannot repair counters", eng.Name())
		case p.Kind == WrongNlink:
			if err = repairer.AdjustNlink(ctx, p.Ino, p.nlinkDelta); err == nil {
				done.LinkCounts++
			}
		case p.Kind == WrongUsage:
			if err = repairer.AdjustUsage(ctx, p.spaceDelta, p.inodesDelta); err == nil {
				done.Usage = true
			}
		case p.Kind == MissingObject:
			if lostFound == 0 {
				if lostFound, err = makeLostFound(ctx, eng); err != nil {
					return done, err
				}
			}
			var moved bool
			if moved, err = moveToLostFound(ctx, eng, lostFound, p); moved {
				done.Moved++
			}
		}
		if err != nil {
			return done, fmt.Errorf("repair %s (%s): %w", p.Path, p.Kind, err)
		}
	}
	return done, nil
}

// makeLostFound finds or makes the root's lost+found directory (mode
// 0700, root's).
func makeLostFound(ctx context.Context, eng meta.Engine) (meta.Ino, error) {
	for {
		ino, attr, err := eng.Lookup(ctx, meta.RootIno, LostFound)
		if err == nil {
			if !attr.IsDir() {
				return 0, fmt.Errorf("/%s is not a directory: rename it, and repair again", LostFound)
			}
			return ino, nil
		}
		if !errors.Is(err, meta.ErrNotFound) {
			return 0, fmt.Errorf("look up /%s: %w", LostFound, err)
		}
		ino, err = eng.NextInodes(ctx, 1)
		if err != nil {
			return 0, fmt.Errorf("make /%s: %w", LostFound, err)
		}
		_, err = eng.Mknod(ctx, meta.RootCred, meta.RootIno, LostFound, ino, meta.TypeDirectory, 0o700, 0, "")
		if err == nil {
			return ino, nil
		}
		if !errors.Is(err, meta.ErrExists) {
			return 0, fmt.Errorf("make /%s: %w", LostFound, err)
		}
		// Made meanwhile by someone else: look it up again.
	}
}

// moveToLostFound renames the file's entry into dir, unless the entry no
// longer names it.
func moveToLostFound(ctx context.Context, eng meta.Engine, dir meta.Ino, p Problem) (bool, error) {
	if p.parent == dir {
		return false, nil // already there
	}
	ino, _, err := eng.Lookup(ctx, p.parent, p.name)
	if errors.Is(err, meta.ErrNotFound) || (err == nil && ino != p.Ino) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	name := fmt.Sprintf("%d-%s", p.Ino, p.name)
	if len(name) > meta.MaxName {
		name = name[:meta.MaxName]
	}
	_, _, _, err = eng.Rename(ctx, meta.RootCred, p.parent, p.name, dir, name, meta.RenameNoReplace, 0)
	if errors.Is(err, meta.ErrExists) {
		return false, nil // moved there before, under the same name
	}
	return err == nil, err
}
