package gc

import (
	"context"
	dbsql "database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"cairn/chunk"
	"cairn/meta"
	"cairn/meta/engines"
	"cairn/object"
)

const blockSize = 1 << 20

type testVolume struct {
	t      *testing.T
	ctx    context.Context
	eng    meta.Engine
	store  object.Store
	bucket string
	db     string
	sid    uint64
}

func newTestVolume(t *testing.T) *testVolume {
	dir := t.TempDir()
	v := &testVolume{t: t, ctx: context.Background(), bucket: filepath.Join(dir, "blocks"), db: filepath.Join(dir, "vol.db")}
	var err error
	if v.eng, err = engines.Open("sqlite3://" + v.db); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.eng.Close() })
	f := meta.Format{Name: "v", UUID: "u", Storage: "file", Bucket: v.bucket, BlockSize: blockSize, Compression: "none", Version: 1}
	if err := v.eng.Init(v.ctx, f, false); err != nil {
		t.Fatal(err)
	}
	if v.store, err = object.Open("file", v.bucket, object.Options{}); err != nil {
		t.Fatal(err)
	}
	if v.sid, err = v.eng.NewSession(v.ctx, meta.SessionInfo{Hostname: "gc-test"}); err != nil {
		t.Fatal(err)
	}
	return v
}

// upload stores the blocks of a new slice of size bytes and returns it.
func (v *testVolume) upload(size uint32) (meta.Slice, []string) {
	v.t.Helper()
	id, err := v.eng.NextSlices(v.ctx, 1)
	if err != nil {
		v.t.Fatal(err)
	}
	keys := chunk.SliceKeys(id, size, blockSize)
	for _, key := range keys {
		if err := v.store.Put(v.ctx, key, make([]byte, 100)); err != nil {
			v.t.Fatal(err)
		}
	}
	return meta.Slice{ID: id, Size: size, Len: size}, keys
}

// file makes a file named name at the root with one uploaded slice.
func (v *testVolume) file(name string, size uint32) []string {
	v.t.Helper()
	ino, err := v.eng.NextInodes(v.ctx, 1)
	if err == nil {
		_, err = v.eng.Mknod(v.ctx, meta.RootCred, meta.RootIno, name, ino, meta.TypeFile, 0o644, 0, "")
	}
	if err != nil {
		v.t.Fatal(err)
	}
	s, keys := v.upload(size)
	if _, _, err := v.eng.Write(v.ctx, ino, 0, s, 1); err != nil {
		v.t.Fatal(err)
	}
	return keys
}

// age sets the modification time of every object stored so far to two
// hours ago, past DefaultMinAge.
func (v *testVolume) age() {
	v.t.Helper()
	old := time.Now().Add(-2 * time.Hour)
	err := filepath.WalkDir(v.bucket, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		return os.Chtimes(path, old, old)
	})
	if err != nil {
		v.t.Fatal(err)
	}
}

func (v *testVolume) present(keys []string) int {
	v.t.Helper()
	n := 0
	for _, key := range keys {
		_, err := v.store.Head(v.ctx, key)
		switch {
		case err == nil:
			n++
		case !errors.Is(err, object.ErrNotExist):
			v.t.Fatal(err)
		}
	}
	return n
}

// TestCollect: objects of uncommitted slices old enough are leaked and
// deleted; those of files, of a file unlinked while open, of recent
// uploads, of slice ids handed out after the snapshot and keys the block
// store did not write are kept; the dead-slice queue is emptied.
func TestCollect(t *testing.T) {
	v := newTestVolume(t)
	kept := v.file("kept", 2*blockSize+1)
	open := v.file("open", blockSize)
	if _, _, err := v.eng.Unlink(v.ctx, meta.RootCred, meta.RootIno, "open", v.sid); err != nil {
		t.Fatal(err)
	}
	dead := v.file("dead", 100)
	ino, _, err := v.eng.Unlink(v.ctx, meta.RootCred, meta.RootIno, "dead", v.sid)
	if err == nil {
		err = v.eng.ReleaseOrphan(v.ctx, v.sid, ino)
	}
	if err != nil {
		t.Fatal(err)
	}
	_, leaked := v.upload(3 * blockSize) // a crash between upload and commit
	foreign := []string{chunk.KeyPrefix + "notes.txt"}
	if err := v.store.Put(v.ctx, foreign[0], []byte("x")); err != nil {
		t.Fatal(err)
	}
	v.age()
	_, recent := v.upload(10) // in flight: uploaded, not committed yet
	next, err := v.eng.NextSlices(v.ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	future := chunk.SliceKeys(next+1000, 10, blockSize)
	if err := v.store.Put(v.ctx, future[0], []byte("x")); err != nil {
		t.Fatal(err)
	}
	// Aged by hand too: only the counter keeps it.
	old := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(filepath.Join(v.bucket, future[0]), old, old); err != nil {
		t.Fatal(err)
	}

	res, err := Collect(v.ctx, v.eng, v.store, blockSize, Options{})
	if err != nil {
		t.Fatal(err)
	}
	all := len(kept) + len(open) + len(dead) + len(leaked) + len(recent) + 2
	if res.Listed.Objects != int64(all) || res.Leaked.Objects != 3 || res.Leaked.Bytes != 300 ||
		res.Young.Objects != 2 || res.Dead.Objects != 1 || res.DeadSlices.Objects != 1 || res.DeadSlices.Bytes != 100 ||
		res.Foreign.Objects != 1 || res.Deleted.Objects != 0 {
		t.Errorf("Collect without Delete: %+v (%d objects stored)", res, all)
	}
	if v.present(leaked) != 3 {
		t.Errorf("Collect without Delete removed objects")
	}
	if _, err := Collect(v.ctx, v.eng, v.store, blockSize, Options{MinAge: -time.Second}); err == nil {
		t.Errorf("a negative minimum age was accepted")
	}

	res, err = Collect(v.ctx, v.eng, v.store, blockSize, Options{Delete: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Deleted.Objects != 3 || res.DeadRemoved != 1 {
		t.Errorf("Collect with Delete: %+v", res)
	}
	for _, c := range []struct {
		what string
		keys []string
		want int
	}{
		{"leaked", leaked, 0},
		{"dead", dead, 0},
		{"kept", kept, len(kept)},
		{"open", open, len(open)},
		{"recent", recent, len(recent)},
		{"future", future[:1], 1},
		{"foreign", foreign, 1},
	} {
		if got := v.present(c.keys); got != c.want {
			t.Errorf("after Collect with Delete, %d objects of %s are stored, want %d", got, c.what, c.want)
		}
	}
	if d, err := v.eng.DeadSlices(v.ctx, 10); err != nil || len(d) != 0 {
		t.Errorf("dead-slice queue after Collect with Delete: %v, %v", d, err)
	}
	res, err = Collect(v.ctx, v.eng, v.store, blockSize, Options{Delete: true})
	if err != nil || res.Leaked.Objects != 0 || res.Deleted.Objects != 0 {
		t.Errorf("a second Collect: %+v, %v", res, err)
	}
}

// TestCollectStrayChunk: the chunk of an inode removed from the database
// behind the engine (its entry and inode gone, its chunk left) references
// nothing: its objects are leaked, a file's are not.
func TestCollectStrayChunk(t *testing.T) {
	v := newTestVolume(t)
	kept := v.file("kept", 100)
	stray := v.file("stray", 2*blockSize)
	ino, _, err := v.eng.Lookup(v.ctx, meta.RootIno, "stray")
	if err != nil {
		t.Fatal(err)
	}
	db, err := dbsql.Open("sqlite3", v.db)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{"DELETE FROM cairn_edge WHERE ino = ?", "DELETE FROM cairn_node WHERE ino = ?"} {
		if _, err := db.Exec(q, int64(ino)); err != nil {
			t.Fatal(err)
		}
	}
	v.age()
	res, err := Collect(v.ctx, v.eng, v.store, blockSize, Options{Delete: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stray.Objects != 1 || res.Stray.Bytes != 2*blockSize || res.Leaked.Objects != 2 || res.Deleted.Objects != 2 {
		t.Errorf("Collect: %+v", res)
	}
	if v.present(stray) != 0 || v.present(kept) != 1 {
		t.Errorf("after Collect: %d of the stray objects and %d of the file's are stored", v.present(stray), v.present(kept))
	}
}
