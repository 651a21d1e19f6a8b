package redis

import (
	"context"
	"encoding/binary"
	"fmt"

	goredis "github.com/redis/go-redis/v9"

	"cairn/meta"
)

var _ meta.InodeReplacer = (*Engine)(nil)

// ReplaceInodes implements meta.InodeReplacer: one script (replace.lua),
// so one transaction and one round trip per call.
func (e *Engine) ReplaceInodes(ctx context.Context, states []meta.InodeState) (meta.Replaced, error) {
	var args []any
	for i := range states {
		s := &states[i]
		args = append(args, uint64(s.Ino), len(s.Records))
		for j := range s.Records {
			r := &s.Records[j]
			if r.Ino != s.Ino {
				return meta.Replaced{}, fmt.Errorf("a record of inode %d among inode %d's: %w", r.Ino, s.Ino, meta.ErrInvalid)
			}
			switch r.Kind {
			case meta.DumpInode:
				args = append(args, "i", encodeAttr(&r.Attr))
			case meta.DumpEntry:
				args = append(args, "e", encodeEntry(r.Name, r.Type, r.Child))
			case meta.DumpSymlink:
				args = append(args, "s", r.Target)
			case meta.DumpXattr:
				args = append(args, "x", r.Name, r.Value)
			case meta.DumpChunk:
				args = append(args, "c", r.Index, meta.EncodeSliceRecords(r.Slices))
			default:
				return meta.Replaced{}, fmt.Errorf("a record of kind %d cannot replace an inode's: %w", r.Kind, meta.ErrInvalid)
			}
		}
	}
	if len(args) == 0 {
		return meta.Replaced{}, nil
	}
	r, err := e.call(ctx, "replace", meta.RootCred, args...)
	if err != nil {
		return meta.Replaced{}, fmt.Errorf("replace %d inodes: %w", len(states), err)
	}
	out, err := decodeReplaced(r)
	if err != nil {
		return meta.Replaced{}, fmt.Errorf("replace %d inodes: %w", len(states), err)
	}
	return out, nil
}

// decodeReplaced reads replace.lua's answer: the slice records kept and
// the children moved (8 bytes each), each end to end.
func decodeReplaced(r any) (meta.Replaced, error) {
	list, err := resultList(r, 2)
	if err != nil {
		return meta.Replaced{}, err
	}
	kept, _ := list[0].(string)
	moved, _ := list[1].(string)
	if len(moved)%8 != 0 {
		return meta.Replaced{}, fmt.Errorf("the script answered %d bytes of children: %w", len(moved), meta.ErrIO)
	}
	var out meta.Replaced
	if out.Kept, err = meta.DecodeSliceRecords([]byte(kept)); err != nil {
		return meta.Replaced{}, err
	}
	for ; len(moved) > 0; moved = moved[8:] {
		out.Moved = append(out.Moved, meta.Ino(binary.BigEndian.Uint64([]byte(moved[:8]))))
	}
	return out, nil
}

// dropBatch is how many slice records one dropreferences script takes,
// so that a large round does not hold the server in one long script.
const dropBatch = 4096

// DropReferences implements meta.InodeReplacer, dropBatch records per
// script.
func (e *Engine) DropReferences(ctx context.Context, slices []meta.Slice) error {
	for len(slices) > 0 {
		page := slices[:min(len(slices), dropBatch)]
		slices = slices[len(page):]
		if _, err := e.call(ctx, "dropreferences", meta.RootCred, meta.EncodeSliceRecords(page)); err != nil {
			return fmt.Errorf("drop %d slice references: %w", len(page), err)
		}
	}
	return nil
}

// raiseCountersScript: KEYS the inode and slice counters; ARGV the last
// values they must have handed out. A counter holds the last value
// handed out.
var raiseCountersScript = goredis.NewScript(`
for i = 1, 2 do
  if (tonumber(redis.call('GET', KEYS[i])) or 0) < tonumber(ARGV[i]) then
    redis.call('SET', KEYS[i], ARGV[i])
  end
end
return 1
`)

// RaiseCounters implements meta.InodeReplacer.
func (e *Engine) RaiseCounters(ctx context.Context, nextInode, nextSlice uint64) error {
	keys := []string{e.prefix + ":nextino", e.prefix + ":nextslice"}
	last := func(next uint64) uint64 { return max(next, 1) - 1 }
	if err := raiseCountersScript.Run(ctx, e.rdb, keys, last(nextInode), last(nextSlice)).Err(); err != nil {
		return e.fail("raise the id counters", err)
	}
	return nil
}

// encodeEntry is a directory's sorted-set member for an entry.
func encodeEntry(name string, typ meta.FileType, ino meta.Ino) []byte {
	return appendEntry(nil, name, typ, ino)
}

// appendEntry appends the member encodeEntry returns to b.
func appendEntry(b []byte, name string, typ meta.FileType, ino meta.Ino) []byte {
	return binary.BigEndian.AppendUint64(append(append(append(b, name...), 0), byte(typ)), uint64(ino))
}
