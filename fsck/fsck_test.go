package fsck

import (
	"context"
	dbsql "database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3"

	"cairn/chunk"
	"cairn/meta"
	"cairn/meta/engines"
	"cairn/object"
)

const blockSize = 1 << 20

// testVolume is a SQLite volume with its blocks in a directory, built
// through the engine: fsck reads metadata and objects, not files.
type testVolume struct {
	t     *testing.T
	ctx   context.Context
	eng   meta.Engine
	store object.Store
	db    string // the SQLite file, for breaking it behind the engine
}

func newTestVolume(t *testing.T) *testVolume {
	dir := t.TempDir()
	v := &testVolume{t: t, ctx: context.Background(), db: filepath.Join(dir, "vol.db")}
	var err error
	if v.eng, err = engines.Open("sqlite3://" + v.db); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.eng.Close() })
	f := meta.Format{Name: "v", UUID: "u", Storage: "file", Bucket: filepath.Join(dir, "blocks"), BlockSize: blockSize, Compression: "none", Version: 1}
	if err := v.eng.Init(v.ctx, f, false); err != nil {
		t.Fatal(err)
	}
	if v.store, err = object.Open("file", f.Bucket, object.Options{}); err != nil {
		t.Fatal(err)
	}
	return v
}

func (v *testVolume) mknod(parent meta.Ino, name string, typ meta.FileType) meta.Ino {
	v.t.Helper()
	ino, err := v.eng.NextInodes(v.ctx, 1)
	if err == nil {
		_, err = v.eng.Mknod(v.ctx, meta.RootCred, parent, name, ino, typ, 0o755, 0, "")
	}
	if err != nil {
		v.t.Fatalf("mknod %s: %v", name, err)
	}
	return ino
}

// file makes a file of size bytes in one slice, with its objects.
func (v *testVolume) file(parent meta.Ino, name string, size uint32) (meta.Ino, []string) {
	v.t.Helper()
	ino := v.mknod(parent, name, meta.TypeFile)
	id, err := v.eng.NextSlices(v.ctx, 1)
	if err != nil {
		v.t.Fatal(err)
	}
	keys := chunk.SliceKeys(id, size, blockSize)
	for _, key := range keys {
		if err := v.store.Put(v.ctx, key, []byte("block")); err != nil {
			v.t.Fatal(err)
		}
	}
	if _, _, err := v.eng.Write(v.ctx, ino, 0, meta.Slice{ID: id, Size: size, Len: size}, 1); err != nil {
		v.t.Fatal(err)
	}
	return ino, keys
}

func (v *testVolume) sql(q string, args ...any) {
	v.t.Helper()
	db, err := dbsql.Open("sqlite3", v.db)
	if err != nil {
		v.t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(q, args...); err != nil {
		v.t.Fatalf("%s: %v", q, err)
	}
}

func (v *testVolume) check(path string) *Report {
	v.t.Helper()
	r, err := Check(v.ctx, v.eng, Options{Path: path, Store: v.store, BlockSize: blockSize})
	if err != nil {
		v.t.Fatalf("Check %q: %v", path, err)
	}
	return r
}

// found lists a report's problems as "kind path".
func found(r *Report) []string {
	var out []string
	for _, p := range r.Problems {
		out = append(out, fmt.Sprintf("%s %s", p.Kind, p.Path))
	}
	return out
}

func wantFound(t *testing.T, step string, r *Report, want ...string) {
	t.Helper()
	got := found(r)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s: found\n  %s\nwant\n  %s\n(%+v)", step, strings.Join(got, "\n  "), strings.Join(want, "\n  "), r.Problems)
	}
}

// TestCheckAndRepair: a sound volume is clean; link counts and usage
// broken in the database and an object deleted from the store are found
// by path, --path narrows the report, Repair fixes the counters and moves
// the file to lost+found, and a second check is clean.
func TestCheckAndRepair(t *testing.T) {
	v := newTestVolume(t)
	a := v.mknod(meta.RootIno, "a", meta.TypeDirectory)
	b := v.mknod(a, "b", meta.TypeDirectory)
	f, _ := v.file(a, "f", 3*blockSize+5)
	g, gKeys := v.file(b, "g", 2*blockSize)
	v.file(meta.RootIno, "top", 100)
	if _, err := v.eng.Link(v.ctx, meta.RootCred, f, b, "f-link"); err != nil {
		t.Fatal(err)
	}
	r := v.check("/")
	wantFound(t, "a sound volume", r)
	if r.UsageNote != "" || r.Objects != 4+2+1 {
		t.Errorf("a sound volume: usage note %q, %d objects looked up, want 7", r.UsageNote, r.Objects)
	}

	v.sql("UPDATE cairn_node SET nlink = 7 WHERE ino = ?", int64(f))
	v.sql("UPDATE cairn_node SET nlink = 9 WHERE ino = ?", int64(b))
	v.sql("UPDATE cairn_usage SET space = space + 8192, inodes = inodes - 1")
	if err := v.store.Delete(v.ctx, gKeys[1]); err != nil {
		t.Fatal(err)
	}
	r = v.check("")
	wantFound(t, "broken", r,
		"wrong usage /",
		"wrong link count /a/b",
		"missing object /a/b/g",
		"wrong link count /a/f",
	)
	wantFound(t, "broken, under /a/b", v.check("/a/b"),
		"wrong link count /a/b",
		"missing object /a/b/g",
	)
	if _, err := Check(v.ctx, v.eng, Options{Path: "/a/nothing"}); err == nil || !strings.Contains(err.Error(), "/a/nothing does not exist") {
		t.Errorf("Check of a missing path: %v", err)
	}

	done, err := Repair(v.ctx, v.eng, r.Problems)
	if err != nil {
		t.Fatal(err)
	}
	if done.LinkCounts != 2 || !done.Usage || done.Moved != 1 {
		t.Errorf("Repair did %+v", done)
	}
	r = v.check("/")
	wantFound(t, "after repair", r)
	if r.InLostFound != 1 {
		t.Errorf("after repair, %d files in lost+found lack data, want 1", r.InLostFound)
	}
	if _, _, err := v.eng.Lookup(v.ctx, v.lostFound(), fmt.Sprintf("%d-g", g)); err != nil {
		t.Errorf("after repair, lost+found: %v", err)
	}
	if attr, err := v.eng.GetAttr(v.ctx, f); err != nil || attr.Nlink != 2 {
		t.Errorf("after repair, /a/f: %+v, %v", attr, err)
	}
}

func (v *testVolume) lostFound() meta.Ino {
	v.t.Helper()
	ino, _, err := v.eng.Lookup(v.ctx, meta.RootIno, LostFound)
	if err != nil {
		v.t.Fatal(err)
	}
	return ino
}

// TestCheckTreeDamage: entries that name missing inodes or the wrong type,
// a directory whose ".." is wrong, and an inode no entry names.
func TestCheckTreeDamage(t *testing.T) {
	v := newTestVolume(t)
	d := v.mknod(meta.RootIno, "d", meta.TypeDirectory)
	e := v.mknod(d, "e", meta.TypeDirectory)
	f := v.mknod(d, "f", meta.TypeFile)
	g := v.mknod(meta.RootIno, "g", meta.TypeFile)
	h := v.mknod(meta.RootIno, "h", meta.TypeFile)
	s, _ := v.file(meta.RootIno, "s", 100)
	wantFound(t, "sound", v.check("/"))

	v.sql("UPDATE cairn_node SET parent = ? WHERE ino = ?", int64(meta.RootIno), int64(e))
	v.sql("UPDATE cairn_edge SET ftype = ? WHERE ino = ?", int(meta.TypeDirectory), int64(f))
	v.sql("DELETE FROM cairn_node WHERE ino = ?", int64(g))
	v.sql("DELETE FROM cairn_edge WHERE ino = ?", int64(h))
	v.sql("DELETE FROM cairn_edge WHERE ino = ?", int64(s))
	v.sql("DELETE FROM cairn_node WHERE ino = ?", int64(s))
	r, err := Check(v.ctx, v.eng, Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantFound(t, "damaged", r,
		"wrong usage /",       // g's inode went, the counters did not see it go
		"wrong link count /d", // f counts as a subdirectory
		"wrong parent /d/e",
		"wrong type /d/f",
		"dangling entry /g",
		fmt.Sprintf("unreachable inode <inode %d, reached from no directory>", h),
		fmt.Sprintf("stray chunk <inode %d, reached from no directory>", s),
	)
}
