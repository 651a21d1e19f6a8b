package redis

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"cairn/meta"
)

// TestRestoreWriter checks what a load relies on while pipelines are in
// flight on several connections: flush returns once the server has done
// every write given before it, gathered commands (values, entries,
// references) survive being cut at a pipeline's end with their arguments
// intact, and a write the server refused fails the load.
func TestRestoreWriter(t *testing.T) {
	e := fresh(t, server(t), 0)
	ctx := context.Background()
	const (
		keys    = 5 * pipeCommands * restoreSenders
		dirs    = 3
		entries = 3 * groupWords
	)
	w := newRestoreWriter(ctx, e.rdb, e.prefix)
	for i := range keys {
		key := w.text("k" + strconv.Itoa(i))
		if err := w.do("SET", key, w.number(uint64(i))); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
		// Values, entries and references gathered in between: each
		// pipeline ends in the middle of all three.
		if err := w.set(w.key("v", uint64(i)), w.text(fmt.Sprintf("value %d", i))); err != nil {
			t.Fatalf("set %d: %v", i, err)
		}
		if i < dirs*entries {
			if err := w.entry(uint64(i%dirs), "name"+strconv.Itoa(i), meta.TypeFile, meta.Ino(i)); err != nil {
				t.Fatalf("entry %d: %v", i, err)
			}
		}
		if err := w.ref(uint64(i), uint64(i%7+1)); err != nil {
			t.Fatalf("ref %d: %v", i, err)
		}
	}
	if err := w.flush(); err != nil {
		t.Fatalf("flush: %v", err)
	}
	w.close()
	for i := 0; i < keys; i += 997 {
		if v, err := e.rdb.Get(ctx, "k"+strconv.Itoa(i)).Result(); err != nil || v != strconv.Itoa(i) {
			t.Errorf("k%d = %q (%v), want %d", i, v, err, i)
		}
		if v, err := e.rdb.Get(ctx, e.key("v", uint64(i))).Result(); err != nil || v != fmt.Sprintf("value %d", i) {
			t.Errorf("value %d = %q (%v)", i, v, err)
		}
		if v, err := e.rdb.HGet(ctx, e.prefix+":refs", strconv.Itoa(i)).Result(); err != nil || v != strconv.Itoa(i%7+1) {
			t.Errorf("reference %d = %q (%v), want %d", i, v, err, i%7+1)
		}
	}
	if n, err := e.rdb.HLen(ctx, e.prefix+":refs").Result(); err != nil || n != keys {
		t.Errorf("%d references (%v), want %d", n, err, keys)
	}
	for dir := range dirs {
		key := e.key("d", uint64(dir))
		if n, err := e.rdb.ZCard(ctx, key).Result(); err != nil || n != entries {
			t.Errorf("directory %d holds %d entries (%v), want %d", dir, n, err, entries)
		}
		members, err := e.rdb.ZRange(ctx, key, 0, -1).Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range members {
			ent, err := decodeEntry(m)
			if err != nil || ent.Name != "name"+strconv.Itoa(int(ent.Ino)) || int(ent.Ino)%dirs != dir || ent.Type != meta.TypeFile {
				t.Fatalf("directory %d holds %+v (%v)", dir, ent, err)
			}
		}
	}

	w = newRestoreWriter(ctx, e.rdb, e.prefix)
	defer w.close()
	// k0 holds a string: SADD to it is refused.
	if err := w.do("SADD", w.text("k0"), w.number(1)); err != nil {
		t.Fatalf("queue: %v", err)
	}
	if err := w.flush(); err == nil {
		t.Errorf("flush after a refused write: no error")
	}
}

// TestRestoreWriterKeys: the keys a load writes are the ones the engine
// reads.
func TestRestoreWriterKeys(t *testing.T) {
	e := &Engine{prefix: "vol7"}
	w := newRestoreWriter(context.Background(), nil, e.prefix)
	defer w.close()
	arg := func(s span) string { return string(w.batch.text[s.start:s.end]) }
	for _, n := range []uint64{0, 1, 10, 123456789, 1<<64 - 1} {
		for _, kind := range []string{"i", "d", "s", "x", "cl"} {
			if got, want := arg(w.key(kind, n)), e.key(kind, n); got != want {
				t.Errorf("key(%q, %d) = %q, want %q", kind, n, got, want)
			}
		}
		for _, idx := range []uint32{0, 7, 1<<32 - 1} {
			if got, want := arg(w.chunkKey(meta.Ino(n), idx)), e.chunkKey(meta.Ino(n), idx); got != want {
				t.Errorf("chunkKey(%d, %d) = %q, want %q", n, idx, got, want)
			}
		}
	}
}
