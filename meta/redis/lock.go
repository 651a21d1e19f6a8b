package redis

import (
	"context"
	"fmt"
	"math"

	"cairn/meta"
)

// Flock takes or drops a whole-file lock, see meta.Engine.
func (e *Engine) Flock(ctx context.Context, ino meta.Ino, owner meta.LockOwner, typ uint32) error {
	_, err := e.call(ctx, "flock", meta.RootCred, uint64(ino), owner.Session, owner.Owner, typ)
	return err
}

// lockEOF is where Lua's doubles stop being exact; a range reaching it
// reaches the end of the file.
const lockEOF = 1 << 53

func lockArgs(l meta.Lock) ([]any, error) {
	if l.Type > meta.LockUnlock {
		return nil, meta.ErrInvalid
	}
	if l.End < l.Start {
		return nil, fmt.Errorf("lock range %d-%d: %w", l.Start, l.End, meta.ErrInvalid)
	}
	start := min(l.Start, lockEOF)
	end := int64(-1)
	if l.End < lockEOF {
		end = int64(l.End)
	}
	return []any{l.Type, start, end, l.Pid}, nil
}

// GetLk finds a conflicting byte-range lock, see meta.Engine.
func (e *Engine) GetLk(ctx context.Context, ino meta.Ino, owner meta.LockOwner, l meta.Lock) (meta.Lock, error) {
	args, err := lockArgs(l)
	if err != nil {
		return meta.Lock{}, err
	}
	r, err := e.call(ctx, "getlk", meta.RootCred, append([]any{uint64(ino), owner.Session, owner.Owner}, args...)...)
	if err != nil {
		return meta.Lock{}, err
	}
	list, err := resultList(r, 4)
	if err != nil {
		return meta.Lock{}, err
	}
	var v [4]int64
	for i := range v {
		if v[i], err = resultInt(list[i]); err != nil {
			return meta.Lock{}, err
		}
	}
	if v[0] == int64(meta.LockUnlock) {
		return meta.Lock{Type: meta.LockUnlock, Start: l.Start, End: l.End, Pid: l.Pid}, nil
	}
	got := meta.Lock{Type: uint32(v[0]), Start: uint64(v[1]), End: uint64(v[2]), Pid: uint32(v[3])}
	if v[2] < 0 {
		got.End = math.MaxUint64
	}
	return got, nil
}

// SetLk sets or clears a byte-range lock, see meta.Engine.
func (e *Engine) SetLk(ctx context.Context, ino meta.Ino, owner meta.LockOwner, l meta.Lock) error {
	args, err := lockArgs(l)
	if err != nil {
		return err
	}
	_, err = e.call(ctx, "setlk", meta.RootCred, append([]any{uint64(ino), owner.Session, owner.Owner}, args...)...)
	return err
}
