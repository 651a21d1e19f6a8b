package migrate

import (
	"context"
	"fmt"

	"cairn/meta"
)

// Finish is the migrator's part of the switch (step 5 of the protocol),
// to run once every client has paused, so that SRC no longer changes. It
// copies to dst the inodes of the changes after position and of every
// pre-mark without its post-mark (a client that died mid-operation) and
// the directory statistics and quotas that changed since the bulk copy
// (copyUsage), raises dst's id counters past src's, and then calls
// markMoved, which
// writes the migration record in phase MigrationSwitched (meta.CheckMoved
// refuses SRC from then on). It returns how many inodes it copied. After
// it, clients reopen their engine on dst.
func Finish(ctx context.Context, src, dst meta.Engine, log meta.ChangeLog, position uint64, markMoved func(context.Context) error) (int, error) {
	replacer, ok := meta.Capability[meta.InodeReplacer](dst)
	if !ok {
		return 0, fmt.Errorf("the %s engine cannot take inodes in during a migration", dst.Name())
	}
	end, err := log.ChangesEnd(ctx)
	if err != nil {
		return 0, fmt.Errorf("read the end of the change log: %w", err)
	}
	inodes, err := lastChanges(ctx, log, position, end)
	if err != nil {
		return 0, err
	}
	copied, err := CopyInodes(ctx, src, dst, inodes)
	if err != nil {
		return copied, fmt.Errorf("copy the last changes: %w", err)
	}
	if err := copyUsage(ctx, src, dst); err != nil {
		return copied, err
	}
	nextInode, err := src.NextInodes(ctx, 1)
	if err != nil {
		return copied, fmt.Errorf("read the inode counter: %w", err)
	}
	nextSlice, err := src.NextSlices(ctx, 1)
	if err != nil {
		return copied, fmt.Errorf("read the slice counter: %w", err)
	}
	if err := replacer.RaiseCounters(ctx, uint64(nextInode)+1, nextSlice+1); err != nil {
		return copied, err
	}
	if err := markMoved(ctx); err != nil {
		return copied, fmt.Errorf("mark the volume moved: %w", err)
	}
	return copied, nil
}

// lastChanges reads the log up to end once and returns the inodes the
// changes after position name, and those of every pre-mark without a
// post-mark: its operation may have committed after the round that read
// it.
func lastChanges(ctx context.Context, log meta.ChangeLog, position, end uint64) (map[meta.Ino]bool, error) {
	type operation struct{ session, number uint64 }
	inodes := map[meta.Ino]bool{}
	open := map[operation][]meta.Ino{}
read:
	for after := uint64(0); after < end; {
		changes, err := log.Changes(ctx, after, 1000)
		if err != nil {
			return nil, fmt.Errorf("read the change log: %w", err)
		}
		if len(changes) == 0 {
			break
		}
		for _, c := range changes {
			if c.Seq > end {
				break read
			}
			op := operation{c.Session, c.Operation}
			switch c.Kind {
			case meta.ChangeBefore:
				open[op] = c.Inodes
			case meta.ChangeAfter:
				delete(open, op)
			}
			if c.Seq > position && c.Kind != meta.ChangeAck {
				for _, ino := range c.Inodes {
					inodes[ino] = true
				}
			}
			after = c.Seq
		}
	}
	for _, list := range open {
		for _, ino := range list {
			inodes[ino] = true
		}
	}
	return inodes, nil
}
