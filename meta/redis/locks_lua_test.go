package redis

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"testing"

	"cairn/meta"
	"cairn/meta/metatest"

	goredis "github.com/redis/go-redis/v9"
)

// packLuaLocks packs ranges as plock.lua stores them: type, start, end
// (doubles; end is +Inf for "to the end of the file"), pid.
func packLuaLocks(ls []meta.Lock) string {
	var b []byte
	for _, l := range ls {
		end := float64(l.End)
		if l.End == math.MaxUint64 {
			end = math.Inf(1)
		}
		b = append(b, byte(l.Type))
		b = binary.BigEndian.AppendUint64(b, math.Float64bits(float64(l.Start)))
		b = binary.BigEndian.AppendUint64(b, math.Float64bits(end))
		b = binary.BigEndian.AppendUint32(b, l.Pid)
	}
	return string(b)
}

func unpackLuaLocks(t *testing.T, s string) []meta.Lock {
	t.Helper()
	const record = 1 + 8 + 8 + 4
	if len(s)%record != 0 {
		t.Fatalf("stored ranges of %d bytes", len(s))
	}
	out := []meta.Lock{}
	for b := []byte(s); len(b) > 0; b = b[record:] {
		l := meta.Lock{
			Type:  uint32(b[0]),
			Start: uint64(math.Float64frombits(binary.BigEndian.Uint64(b[1:]))),
			Pid:   binary.BigEndian.Uint32(b[17:]),
		}
		end := math.Float64frombits(binary.BigEndian.Uint64(b[9:]))
		l.End = uint64(end)
		if math.IsInf(end, 1) {
			l.End = math.MaxUint64
		}
		out = append(out, l)
	}
	return out
}

// TestLocksLuaMatchGo runs setlk.lua and getlk.lua through a real
// redis-server on every request against every state, first as the owner
// of the state (the ranges it stores must be meta.ApplyLock's), then as
// another owner (EAGAIN and getlk's answer must follow
// meta.LocksConflict).
func TestLocksLuaMatchGo(t *testing.T) {
	e := formatted(t)
	ctx := context.Background()
	const ino = meta.Ino(77)
	key := e.prefix + ":p77"
	me := meta.LockOwner{Session: 5, Owner: 1}
	other := meta.LockOwner{Session: 6, Owner: 2}
	field := func(o meta.LockOwner) string { return fmt.Sprintf("%d:%d", o.Session, o.Owner) }
	cases := 0
	for _, state := range metatest.LockStates(1<<53 - 1) {
		for _, l := range metatest.LockRequests(1<<53 - 1) {
			if err := e.rdb.Del(ctx, key).Err(); err != nil {
				t.Fatal(err)
			}
			if len(state) > 0 {
				if err := e.rdb.HSet(ctx, key, field(me), packLuaLocks(state)).Err(); err != nil {
					t.Fatal(err)
				}
			}
			if err := e.SetLk(ctx, ino, me, l); err != nil {
				t.Fatalf("SetLk %v over %v: %v", l, state, err)
			}
			stored, err := e.rdb.HGet(ctx, key, field(me)).Result()
			if err != nil && !errors.Is(err, goredis.Nil) {
				t.Fatal(err)
			}
			got := unpackLuaLocks(t, stored)
			if want := meta.ApplyLock(state, l); !reflect.DeepEqual(got, want) {
				t.Errorf("SetLk %v over %v: Lua stored %v, Go %v", l, state, got, want)
			}
			cases++
			if l.Type == meta.LockUnlock {
				continue
			}

			// The same request by another owner.
			if err := e.rdb.Del(ctx, key).Err(); err != nil {
				t.Fatal(err)
			}
			if len(state) > 0 {
				if err := e.rdb.HSet(ctx, key, field(me), packLuaLocks(state)).Err(); err != nil {
					t.Fatal(err)
				}
			}
			var conflicts []meta.Lock
			for _, r := range state {
				if meta.LocksConflict(r, l) {
					conflicts = append(conflicts, r)
				}
			}
			found, err := e.GetLk(ctx, ino, other, l)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case len(conflicts) == 0 && found.Type != meta.LockUnlock:
				t.Errorf("GetLk %v beside %v: Lua found %v, Go no conflict", l, state, found)
			case len(conflicts) > 0 && !contains(conflicts, found):
				t.Errorf("GetLk %v beside %v: Lua found %v, Go conflicts with %v", l, state, found, conflicts)
			}
			err = e.SetLk(ctx, ino, other, l)
			if want := len(conflicts) > 0; errors.Is(err, meta.ErrAgain) != want || (err != nil && !want) {
				t.Errorf("SetLk %v beside %v by another owner: Lua %v, Go conflict %v", l, state, err, want)
			}
			cases++
		}
	}
	t.Logf("%d cases agree", cases)
}

func contains(ls []meta.Lock, l meta.Lock) bool {
	for _, x := range ls {
		if x == l {
			return true
		}
	}
	return false
}
