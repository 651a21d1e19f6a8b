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

// TestRestoreWriterKeys: the keys a load writes are the ones doc.go
// describes and the scripts read: prefix, kind and decimal number, and a
// chunk's inode and index.
func TestRestoreWriterKeys(t *testing.T) {
	w := newRestoreWriter(context.Background(), nil, "vol7")
	defer w.close()
	arg := func(s span) string { return string(w.batch.text[s.start:s.end]) }
	for _, c := range []struct {
		kind string
		n    uint64
		want string
	}{
		{"i", 0, "vol7:i0"},
		{"d", 1, "vol7:d1"},
		{"s", 10, "vol7:s10"},
		{"x", 123456789, "vol7:x123456789"},
		{"cl", 1<<64 - 1, "vol7:cl18446744073709551615"},
	} {
		if got := arg(w.key(c.kind, c.n)); got != c.want {
			t.Errorf("key(%q, %d) = %q, want %q", c.kind, c.n, got, c.want)
		}
	}
	for _, c := range []struct {
		ino  meta.Ino
		idx  uint32
		want string
	}{
		{1, 0, "vol7:c1:0"},
		{123456789, 7, "vol7:c123456789:7"},
		{1<<64 - 1, 1<<32 - 1, "vol7:c18446744073709551615:4294967295"},
	} {
		if got := arg(w.chunkKey(c.ino, c.idx)); got != c.want {
			t.Errorf("chunkKey(%d, %d) = %q, want %q", c.ino, c.idx, got, c.want)
		}
	}
}
