package inspect

import (
	"context"
	"fmt"

	"cairn/chunk"
	"cairn/meta"
)

// FileInfo is what a file is made of.
type FileInfo struct {
	Ino    meta.Ino    `json:"inode"`
	Attr   meta.Attr   `json:"attr"`
	Chunks []ChunkInfo `json:"chunks,omitempty"`
}

// ChunkInfo is one chunk of a file: its slice list, oldest first (later
// slices cover earlier ones where they overlap).
type ChunkInfo struct {
	Index  uint32      `json:"index"`
	Slices []SliceInfo `json:"slices"`
}

// SliceInfo is one record of a chunk's list and the objects that hold its
// slice (none for a hole).
type SliceInfo struct {
	meta.Slice
	Keys []string `json:"keys,omitempty"`
}

// File reads ino's attributes and, for a regular file, every chunk's
// slice list and the object keys of each slice on a volume of blockSize
// blocks.
func File(ctx context.Context, eng meta.Engine, ino meta.Ino, blockSize int) (FileInfo, error) {
	a, err := eng.GetAttr(ctx, ino)
	if err != nil {
		return FileInfo{}, fmt.Errorf("attributes of inode %d: %w", ino, err)
	}
	info := FileInfo{Ino: ino, Attr: a}
	if a.Type != meta.TypeFile {
		return info, nil
	}
	chunks := (a.Length + meta.ChunkSize - 1) / meta.ChunkSize
	for idx := uint32(0); uint64(idx) < chunks; idx++ {
		list, err := eng.Read(ctx, ino, idx)
		if err != nil {
			return info, fmt.Errorf("chunk %d of inode %d: %w", idx, ino, err)
		}
		if len(list) == 0 {
			continue
		}
		c := ChunkInfo{Index: idx}
		for _, s := range list {
			si := SliceInfo{Slice: s}
			if s.ID != 0 {
				si.Keys = chunk.SliceKeys(s.ID, s.Size, blockSize)
			}
			c.Slices = append(c.Slices, si)
		}
		info.Chunks = append(info.Chunks, c)
	}
	return info, nil
}
