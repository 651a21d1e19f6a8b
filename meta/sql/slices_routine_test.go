package sql

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"cairn/meta"
)

// chunkTables is what cairn_chunk, cairn_sliceref and cairn_dead hold.
type chunkTables struct {
	chunks map[int64][]meta.Slice
	refs   map[int64][2]int64 // id: size, refs
	dead   map[int64]int64    // id: size
}

// checkSliceRoutines holds the routines that read and write slice records
// inside the database (cairn_hide_range appends hole records,
// cairn_drop_chunks reads ids and sizes out of them) to the Go code that
// does the same through meta's slice record codec (hideRange,
// dropChunks): from the same tables, each case must leave the same
// tables, record for record.
func checkSliceRoutines(t *testing.T, e *Engine) {
	ctx := context.Background()
	if err := e.Init(ctx, testFormat(), false); err != nil {
		t.Fatal(err)
	}
	c := &conn{ctx: ctx, e: e, q: e.db}
	const ino = 70
	const chunk = meta.ChunkSize
	big := meta.Slice{Pos: 0, ID: 1<<62 + 3, Size: 4 << 20, Len: 4 << 20} // all eight bytes of the id in use
	a := meta.Slice{Pos: 100, ID: 11, Size: 1000, Off: 10, Len: 500}
	b := meta.Slice{Pos: chunk - 10, ID: 12, Size: 10, Len: 10}
	hole := meta.Slice{Pos: 50, Size: 20, Len: 20}
	start := chunkTables{
		chunks: map[int64][]meta.Slice{0: {a, big, hole}, 1: {b, a}, 2: {big}, 5: {a, b, hole}},
		// a is referenced four times; one reference more is held elsewhere.
		refs: map[int64][2]int64{int64(a.ID): {1000, 5}, int64(b.ID): {10, 2}, int64(big.ID): {4 << 20, 2}},
		dead: map[int64]int64{},
	}
	call := "SELECT %s(%s)"
	if e.d.callProcedure {
		call = "CALL %s(%s)"
	}
	run := func(goSide bool, what string, goRun func(c *conn) error, routine string, args ...any) chunkTables {
		t.Helper()
		loadChunkTables(t, c, ino, start)
		var err error
		if goSide {
			err = e.txn(ctx, goRun)
		} else {
			_, err = c.exec(fmt.Sprintf(call, routine, marks(len(args))), args...)
		}
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return readChunkTables(t, c, ino)
	}
	cases := 0
	for _, r := range [][2]uint64{{0, 10}, {5, chunk}, {chunk - 1, chunk + 1}, {10, 3 * chunk}, {chunk, 2 * chunk},
		{2*chunk + 7, 6 * chunk}, {100, 100}, {3 * chunk, 4 * chunk}, {0, 6 * chunk}} {
		off, end := r[0], r[1]
		what := fmt.Sprintf("hiding [%d, %d)", off, end)
		want := run(true, what, func(c *conn) error { return c.hideRange(ino, off, end) }, "")
		got := run(false, what, nil, "cairn_hide_range", int64(ino), int64(off), int64(end))
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: routine left %+v, Go %+v", what, got, want)
		}
		cases++
	}
	for _, from := range []uint32{0, 1, 2, 3, 6} {
		what := fmt.Sprintf("dropping chunks from %d", from)
		want := run(true, what, func(c *conn) error { return c.dropChunks(ino, from) }, "")
		got := run(false, what, nil, "cairn_drop_chunks", int64(ino), int64(from))
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: routine left %+v, Go %+v", what, got, want)
		}
		cases++
	}
	t.Logf("%d slice record cases agree", cases)
}

func loadChunkTables(t *testing.T, c *conn, ino int64, s chunkTables) {
	t.Helper()
	for _, q := range []string{"DELETE FROM cairn_chunk", "DELETE FROM cairn_sliceref", "DELETE FROM cairn_dead"} {
		if _, err := c.exec(q); err != nil {
			t.Fatal(err)
		}
	}
	for idx, list := range s.chunks {
		if _, err := c.exec("INSERT INTO cairn_chunk (ino, idx, slices) VALUES (?, ?, ?)", ino, idx, meta.EncodeSliceRecords(list)); err != nil {
			t.Fatal(err)
		}
	}
	for id, v := range s.refs {
		if _, err := c.exec("INSERT INTO cairn_sliceref (id, size, refs) VALUES (?, ?, ?)", id, v[0], v[1]); err != nil {
			t.Fatal(err)
		}
	}
}

func readChunkTables(t *testing.T, c *conn, ino int64) chunkTables {
	t.Helper()
	out := chunkTables{chunks: map[int64][]meta.Slice{}, refs: map[int64][2]int64{}, dead: map[int64]int64{}}
	rows, err := c.query("SELECT idx, slices FROM cairn_chunk WHERE ino = ?", ino)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var idx int64
		var b []byte
		if err := rows.Scan(&idx, &b); err != nil {
			t.Fatal(err)
		}
		if out.chunks[idx], err = meta.DecodeSliceRecords(b); err != nil {
			t.Fatal(err)
		}
	}
	rows.Close()
	rows, err = c.query("SELECT id, size, refs FROM cairn_sliceref")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, size, refs int64
		if err := rows.Scan(&id, &size, &refs); err != nil {
			t.Fatal(err)
		}
		out.refs[id] = [2]int64{size, refs}
	}
	rows.Close()
	rows, err = c.query("SELECT id, size FROM cairn_dead")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, size int64
		if err := rows.Scan(&id, &size); err != nil {
			t.Fatal(err)
		}
		out.dead[id] = size
	}
	rows.Close()
	return out
}
