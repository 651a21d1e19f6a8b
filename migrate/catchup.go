package migrate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"cairn/meta"
)

// replaceBatch is how many inodes one ReplaceInodes call carries.
const replaceBatch = 100

// readState reads ino's records from src through the engine's own calls:
// none when it does not exist or is linked nowhere (an orphan, which a
// dump leaves out too). The reads are not one snapshot: a change that
// lands between them has a post-mark after the round's end, and the next
// round or the switch copies the inode again.
func readState(ctx context.Context, src meta.Engine, ino meta.Ino) ([]meta.DumpRecord, error) {
	a, err := src.GetAttr(ctx, ino)
	if errors.Is(err, meta.ErrNotFound) || (err == nil && a.Nlink == 0) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read inode %d: %w", ino, err)
	}
	recs := []meta.DumpRecord{{Kind: meta.DumpInode, Ino: ino, Attr: a}}
	gone := func(err error) bool { return errors.Is(err, meta.ErrNotFound) }
	switch a.Type {
	case meta.TypeDirectory:
		list, err := readEntries(ctx, src, ino)
		if gone(err) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		recs = append(recs, list...)
	case meta.TypeSymlink:
		target, err := src.Readlink(ctx, ino)
		if gone(err) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read symlink %d: %w", ino, err)
		}
		recs = append(recs, meta.DumpRecord{Kind: meta.DumpSymlink, Ino: ino, Target: target})
	case meta.TypeFile:
		for idx := uint64(0); idx*meta.ChunkSize < a.Length; idx++ {
			list, err := src.Read(ctx, ino, uint32(idx))
			if gone(err) {
				return nil, nil
			}
			if err != nil {
				return nil, fmt.Errorf("read chunk %d of inode %d: %w", idx, ino, err)
			}
			if len(list) > 0 {
				recs = append(recs, meta.DumpRecord{Kind: meta.DumpChunk, Ino: ino, Index: uint32(idx), Slices: list})
			}
		}
	}
	names, err := src.ListXattr(ctx, ino)
	if gone(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list the xattrs of inode %d: %w", ino, err)
	}
	for _, name := range names {
		v, err := src.GetXattr(ctx, ino, name)
		if errors.Is(err, meta.ErrNoAttr) {
			continue
		}
		if gone(err) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read xattr %q of inode %d: %w", name, ino, err)
		}
		recs = append(recs, meta.DumpRecord{Kind: meta.DumpXattr, Ino: ino, Name: name, Value: v})
	}
	return recs, nil
}

// readEntries reads directory ino's entries as dump records.
func readEntries(ctx context.Context, e meta.Engine, ino meta.Ino) ([]meta.DumpRecord, error) {
	var out []meta.DumpRecord
	after := ""
	for {
		page, err := e.Readdir(ctx, ino, after, 1000, false)
		if err != nil {
			return nil, fmt.Errorf("read directory %d: %w", ino, err)
		}
		if len(page) == 0 {
			return out, nil
		}
		for _, ent := range page {
			out = append(out, meta.DumpRecord{Kind: meta.DumpEntry, Ino: ino, Name: ent.Name, Child: ent.Ino, Type: ent.Type})
		}
		after = page[len(page)-1].Name
	}
}

// copyReaders is how many inodes CopyInodes reads from SRC at once: each
// read is a few round trips, which would otherwise come one after the
// other.
const copyReaders = 8

// CopyInodes copies the present state of inodes from src to dst, and of
// every child that came into or left one of them as a directory
// (compared with dst's copy: ReplaceInodes reports them, Replaced.Moved),
// and returns how many inodes it copied. It reads replaceBatch inodes at
// a time, copyReaders at once, then writes them with one ReplaceInodes
// call.
//
// It adds every reference of the new slice lists before it drops any of
// the old ones, however many ReplaceInodes calls it takes: it drops the
// references ReplaceInodes kept only after the last call (after the calls
// that succeeded when one fails: what they wrote is whole, and keeping
// their old references would leak the slices).
func CopyInodes(ctx context.Context, src, dst meta.Engine, inodes map[meta.Ino]bool) (copied int, err error) {
	replacer, ok := meta.Capability[meta.InodeReplacer](dst)
	if !ok {
		return 0, fmt.Errorf("the %s engine cannot take inodes in during a migration", dst.Name())
	}
	todo := make([]meta.Ino, 0, len(inodes))
	for ino := range inodes {
		todo = append(todo, ino)
	}
	slices.Sort(todo)
	seen := map[meta.Ino]bool{}
	var kept []meta.Slice
	defer func() {
		if derr := replacer.DropReferences(ctx, kept); derr != nil && err == nil {
			err = fmt.Errorf("drop the references of the slice lists replaced: %w", derr)
		}
	}()
	for len(todo) > 0 {
		var wave []meta.Ino
		for len(todo) > 0 && len(wave) < replaceBatch {
			if ino := todo[0]; !seen[ino] {
				seen[ino] = true
				wave = append(wave, ino)
			}
			todo = todo[1:]
		}
		if len(wave) == 0 {
			break
		}
		batch, err := readInodes(ctx, src, wave)
		if err != nil {
			return copied, err
		}
		done, err := replacer.ReplaceInodes(ctx, batch)
		kept = append(kept, done.Kept...)
		if err != nil {
			return copied, err
		}
		copied += len(batch)
		todo = append(todo, done.Moved...)
	}
	return copied, nil
}

// readInodes reads the state of each inode of wave from src, copyReaders
// inodes at once.
func readInodes(ctx context.Context, src meta.Engine, wave []meta.Ino) ([]meta.InodeState, error) {
	states := make([]meta.InodeState, len(wave))
	errs := make([]error, len(wave))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(copyReaders, len(wave)) {
		wg.Go(func() {
			for i := range next {
				recs, err := readState(ctx, src, wave[i])
				states[i], errs[i] = meta.InodeState{Ino: wave[i], Records: recs}, err
			}
		})
	}
	for i := range wave {
		next <- i
	}
	close(next)
	wg.Wait()
	return states, errors.Join(errs...)
}

// changedInodes is the inodes the changes in (after, end] name.
func changedInodes(ctx context.Context, log meta.ChangeLog, after, end uint64) (map[meta.Ino]bool, error) {
	out := map[meta.Ino]bool{}
	for after < end {
		changes, err := log.Changes(ctx, after, 1000)
		if err != nil {
			return nil, fmt.Errorf("read the change log: %w", err)
		}
		if len(changes) == 0 {
			break
		}
		for _, c := range changes {
			if c.Seq > end {
				return out, nil
			}
			if c.Kind != meta.ChangeAck {
				for _, ino := range c.Inodes {
					out[ino] = true
				}
			}
			after = c.Seq
		}
	}
	return out, nil
}

// CatchUpRound is one catch-up round (step 4 of the protocol): it reads
// the log's end, then copies to dst every inode the changes after from
// name, and returns the end it reached and how many inodes it copied.
func CatchUpRound(ctx context.Context, src, dst meta.Engine, log meta.ChangeLog, from uint64) (end uint64, copied int, err error) {
	end, err = log.ChangesEnd(ctx)
	if err != nil {
		return from, 0, fmt.Errorf("read the end of the change log: %w", err)
	}
	inodes, err := changedInodes(ctx, log, from, end)
	if err != nil {
		return from, 0, err
	}
	copied, err = CopyInodes(ctx, src, dst, inodes)
	if err != nil {
		return from, copied, fmt.Errorf("catch up with the changes after %d: %w", from, err)
	}
	return end, copied, nil
}
