package gc

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"cairn/meta"
)

// references is what the snapshot says is in use.
type references struct {
	at        time.Time // taken just before the snapshot was
	next      uint64    // the slice-id counter in the snapshot
	live      meta.IDSet
	dead      meta.IDSet
	deadCount Count
	records   *atomic.Int64

	// inodes are those the snapshot holds; a chunk read before its
	// inode's record waits in pending until the end, when a chunk whose
	// inode is in neither the snapshot nor the orphans counts in stray.
	// Engines dump an inode before its chunks (or all inodes first), so
	// pending stays small.
	inodes  meta.IDSet
	pending []pendingSlice
	stray   Count
}

// pendingSlice is a slice of a chunk whose inode was not seen yet.
type pendingSlice struct {
	ino  meta.Ino
	id   uint64
	size uint32
}

// referenced reads the slices in use from one snapshot of the metadata,
// then those of the inodes sessions keep unlinked while open.
func referenced(ctx context.Context, eng meta.Engine, records *atomic.Int64) (*references, error) {
	dumper, ok := meta.Capability[meta.Dumper](eng)
	if !ok {
		return nil, fmt.Errorf("the %s engine cannot be read in one snapshot, which gc needs", eng.Name())
	}
	lister, ok := meta.Capability[meta.OrphanLister](eng)
	if !ok {
		return nil, fmt.Errorf("the %s engine cannot list files unlinked while open, which gc needs", eng.Name())
	}
	r := &references{at: time.Now(), records: records}
	if err := dumper.Dump(ctx, r); err != nil {
		return nil, fmt.Errorf("read the metadata: %w", err)
	}
	orphans, err := lister.Orphans(ctx)
	if err != nil {
		return nil, err
	}
	for _, ino := range orphans {
		r.inodes.Add(uint64(ino))
		if err := r.addInode(ctx, eng, ino); err != nil {
			return nil, err
		}
	}
	for _, p := range r.pending {
		if r.inodes.Has(uint64(p.ino)) {
			r.live.Add(p.id)
		} else if p.id != 0 {
			r.stray.add(int64(p.size))
		}
	}
	r.pending = nil
	return r, nil
}

// addInode adds the slices of every chunk of ino; an inode gone meanwhile
// (released) adds nothing.
func (r *references) addInode(ctx context.Context, eng meta.Engine, ino meta.Ino) error {
	attr, err := eng.GetAttr(ctx, ino)
	if errors.Is(err, meta.ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read orphan inode %d: %w", ino, err)
	}
	for idx := uint64(0); idx*meta.ChunkSize < attr.Length; idx++ {
		list, err := eng.Read(ctx, ino, uint32(idx))
		if errors.Is(err, meta.ErrNotFound) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read chunk %d of orphan inode %d: %w", idx, ino, err)
		}
		for _, s := range list {
			r.live.Add(s.ID)
		}
	}
	return nil
}

// Header implements meta.DumpWriter.
func (r *references) Header(h meta.DumpHeader) error {
	r.next = h.NextSlice
	r.live = meta.NewIDSet(h.NextSlice)
	r.dead = meta.NewIDSet(h.NextSlice)
	r.inodes = meta.NewIDSet(h.NextInode)
	return nil
}

// Record implements meta.DumpWriter.
func (r *references) Record(rec *meta.DumpRecord) error {
	r.records.Add(1)
	switch rec.Kind {
	case meta.DumpInode:
		r.inodes.Add(uint64(rec.Ino))
	case meta.DumpChunk:
		for _, s := range rec.Slices {
			if r.inodes.Has(uint64(rec.Ino)) {
				r.live.Add(s.ID)
			} else {
				r.pending = append(r.pending, pendingSlice{ino: rec.Ino, id: s.ID, size: s.Size})
			}
		}
	case meta.DumpDeadSlice:
		r.dead.Add(rec.Slice.ID)
		r.deadCount.add(int64(rec.Slice.Size))
	}
	return nil
}
