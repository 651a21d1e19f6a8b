package vfs

import (
	"context"
	"errors"
	"fmt"

	"cairn/meta"
)

// CompactStats counts what CompactTree did.
type CompactStats struct {
	Files  int64 // regular files looked at
	Chunks int64 // chunks merged into one slice each
	Slices int64 // records those chunks held before
	// Changed: chunks written to while they were merged, left as the
	// writer made them (a later compaction takes them).
	Changed int64
}

// compactPage is how many entries CompactTree reads of a directory at once.
const compactPage = 1000

// CompactTree merges, now, every chunk holding at least minRecords
// records (2 at the least) of the regular files at or under ino, walking
// directories through the client; symbolic links are not followed.
// report, when not nil, is called after each file. Files removed while it
// runs are skipped.
func (v *VFS) CompactTree(ctx context.Context, ino meta.Ino, minRecords int, report func(CompactStats)) (CompactStats, error) {
	var st CompactStats
	minRecords = max(minRecords, 2)
	attr, err := v.client.GetAttr(ctx, ino)
	if err != nil {
		return st, err
	}
	if attr.Type == meta.TypeFile {
		err := v.compactFile(ctx, ino, attr.Length, minRecords, &st)
		return st, err
	}
	dirs := []meta.Ino{}
	if attr.IsDir() {
		dirs = append(dirs, ino)
	}
	for len(dirs) > 0 {
		dir := dirs[len(dirs)-1]
		dirs = dirs[:len(dirs)-1]
		for after := ""; ; {
			entries, err := v.client.Readdir(ctx, dir, after, compactPage, true)
			if errors.Is(err, meta.ErrNotFound) {
				break
			}
			if err != nil {
				return st, fmt.Errorf("read directory %d: %w", dir, err)
			}
			if len(entries) == 0 {
				break
			}
			for _, e := range entries {
				switch e.Type {
				case meta.TypeDirectory:
					dirs = append(dirs, e.Ino)
				case meta.TypeFile:
					length := uint64(0)
					if e.Attr != nil {
						length = e.Attr.Length
					}
					if err := v.compactFile(ctx, e.Ino, length, minRecords, &st); err != nil {
						return st, err
					}
					if report != nil {
						report(st)
					}
				}
			}
			after = entries[len(entries)-1].Name
		}
	}
	return st, nil
}

// compactFile merges the chunks of ino, length bytes long, that hold at
// least minRecords records.
func (v *VFS) compactFile(ctx context.Context, ino meta.Ino, length uint64, minRecords int, st *CompactStats) error {
	st.Files++
	for idx := uint64(0); idx*meta.ChunkSize < length; idx++ {
		list, err := v.client.Read(ctx, ino, uint32(idx))
		if errors.Is(err, meta.ErrNotFound) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read chunk %d of inode %d: %w", idx, ino, err)
		}
		if len(list) < minRecords {
			continue
		}
		switch err := v.Compact(ctx, ino, uint32(idx)); {
		case errors.Is(err, meta.ErrConflict):
			st.Changed++
		case errors.Is(err, meta.ErrNotFound):
			return nil
		case err != nil:
			return fmt.Errorf("compact chunk %d of inode %d: %w", idx, ino, err)
		default:
			st.Chunks++
			st.Slices += int64(len(list))
		}
	}
	return nil
}
