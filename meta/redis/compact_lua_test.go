package redis

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"cairn/meta"
)

// TestCompactLuaMatchesGo runs compact.lua through a real redis-server on
// every list and every old prefix of up to three records drawn from
// records that differ in one field, and wants the list it leaves and its
// refusal to be meta.CompactList's.
func TestCompactLuaMatchesGo(t *testing.T) {
	e := formatted(t)
	ctx := context.Background()
	const ino, idx = 60, 2
	key := fmt.Sprintf("%s:c%d:%d", e.prefix, ino, idx)
	records := []meta.Slice{
		{Pos: 0, ID: 11, Size: 100, Off: 0, Len: 100},
		{Pos: 0, ID: 11, Size: 100, Off: 10, Len: 90},
		{Pos: 0, Len: 50}, // a hole
	}
	var lists [][]meta.Slice
	var grow func(list []meta.Slice)
	grow = func(list []meta.Slice) {
		lists = append(lists, list)
		if len(list) == 3 {
			return
		}
		for _, r := range records {
			grow(append(append([]meta.Slice(nil), list...), r))
		}
	}
	grow(nil)
	merged := meta.Slice{Pos: 0, ID: 99, Size: 100, Len: 100}
	cases := 0
	for _, list := range lists {
		for _, old := range lists {
			if err := e.rdb.Del(ctx, key).Err(); err != nil {
				t.Fatal(err)
			}
			for _, s := range list {
				if err := e.rdb.RPush(ctx, key, meta.AppendSliceRecord(nil, s)).Err(); err != nil {
					t.Fatal(err)
				}
			}
			var packed []byte
			for _, o := range old {
				packed = append(packed, meta.AppendSliceRecord(nil, o)...)
			}
			_, gotErr := e.call(ctx, "compact", meta.RootCred, uint64(ino), idx, packed, meta.AppendSliceRecord(nil, merged))
			stored, err := e.rdb.LRange(ctx, key, 0, -1).Result()
			if err != nil {
				t.Fatal(err)
			}
			got := []meta.Slice{}
			for _, r := range stored {
				s, err := meta.DecodeSliceRecord([]byte(r))
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, s)
			}
			want, wantErr := meta.CompactList(list, old, merged)
			if wantErr != nil {
				want = append([]meta.Slice{}, list...)
			}
			sameErr := (gotErr == nil) == (wantErr == nil) &&
				errors.Is(gotErr, meta.ErrConflict) == errors.Is(wantErr, meta.ErrConflict) &&
				errors.Is(gotErr, meta.ErrInvalid) == errors.Is(wantErr, meta.ErrInvalid)
			if !sameErr || !reflect.DeepEqual(got, want) {
				t.Errorf("compact %v of %v: Lua %v %v, Go %v %v", old, list, got, gotErr, want, wantErr)
			}
			cases++
		}
	}
	t.Logf("%d cases agree", cases)
}
