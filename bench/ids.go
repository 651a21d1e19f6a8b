package bench

import (
	"context"
	"fmt"

	"cairn/meta"
)

// InodeBatch and SliceBatch are how many inode numbers and slice ids an IDs
// asks the engine for at once: the defaults of meta.ClientConfig, so that a
// create or a write pays for its id what it pays in a mounted client.
const (
	InodeBatch = 100
	SliceBatch = 200
)

// IDs hands out inode numbers and slice ids from batches reserved in the
// engine. It is not safe for concurrent use: give each goroutine its own.
type IDs struct {
	eng               meta.Engine
	nextIno, inoLeft  uint64
	nextSlice, slLeft uint64
}

// NewIDs makes an allocator drawing from eng.
func NewIDs(eng meta.Engine) *IDs { return &IDs{eng: eng} }

// Ino returns a fresh inode number.
func (a *IDs) Ino(ctx context.Context) (meta.Ino, error) {
	if a.inoLeft == 0 {
		first, err := a.eng.NextInodes(ctx, InodeBatch)
		if err != nil {
			return 0, fmt.Errorf("reserve %d inode numbers: %w", InodeBatch, err)
		}
		a.nextIno, a.inoLeft = uint64(first), InodeBatch
	}
	a.inoLeft--
	a.nextIno++
	return meta.Ino(a.nextIno - 1), nil
}

// Slice returns a fresh slice id.
func (a *IDs) Slice(ctx context.Context) (uint64, error) {
	if a.slLeft == 0 {
		first, err := a.eng.NextSlices(ctx, SliceBatch)
		if err != nil {
			return 0, fmt.Errorf("reserve %d slice ids: %w", SliceBatch, err)
		}
		a.nextSlice, a.slLeft = first, SliceBatch
	}
	a.slLeft--
	a.nextSlice++
	return a.nextSlice - 1, nil
}
