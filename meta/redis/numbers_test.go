package redis

import (
	"context"
	"testing"

	"cairn/meta"
)

// TestLargeNumbers passes values near the limits of what Lua's doubles
// hold exactly through the scripts: inode numbers and slice ids past 2^40,
// lengths past 4 GiB, uids past 2^31, times far from the epoch.
func TestLargeNumbers(t *testing.T) {
	e := formatted(t)
	ctx := context.Background()
	if err := e.rdb.Set(ctx, e.prefix+":nextino", int64(1)<<45, 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := e.rdb.Set(ctx, e.prefix+":nextslice", int64(1)<<50, 0).Err(); err != nil {
		t.Fatal(err)
	}
	ino, err := e.NextInodes(ctx, 1)
	if err != nil || ino != meta.Ino(1<<45+1) {
		t.Fatalf("NextInodes = %d, %v", ino, err)
	}
	id, _ := e.NextSlices(ctx, 1)
	cred := meta.Cred{Uid: 4294967294, Gid: 4294967293}
	if _, err := e.Mknod(ctx, meta.RootCred, meta.RootIno, "big", ino, meta.TypeFile, 0666, 0, ""); err != nil {
		t.Fatal(err)
	}
	uid, gid := cred.Uid, cred.Gid
	if _, err := e.SetAttr(ctx, meta.RootCred, ino, meta.SetAttr{Uid: &uid, Gid: &gid}); err != nil {
		t.Fatal(err)
	}
	at, mt := int64(-1)*1e18-7, int64(4e18)+999999999
	a, err := e.SetAttr(ctx, cred, ino, meta.SetAttr{Atime: &at, Mtime: &mt})
	if err != nil {
		t.Fatal(err)
	}
	if a.Uid != uid || a.Gid != gid || a.Atime != at || a.Mtime != mt {
		t.Errorf("attributes came back as %+v", a)
	}
	idx := uint32(70000) // 70000 chunks of 64 MiB: about 4.3 TiB
	s := meta.Slice{Pos: 12345, ID: id, Size: 1 << 20, Off: 7, Len: 1000}
	a, n, err := e.Write(ctx, ino, idx, s, mt)
	if err != nil {
		t.Fatal(err)
	}
	if want := uint64(idx)*meta.ChunkSize + 12345 + 1000; a.Length != want || n != 1 {
		t.Errorf("after a write at chunk %d: length %d records %d, want %d and 1", idx, a.Length, n, want)
	}
	if got, err := e.Read(ctx, ino, idx); err != nil || len(got) != 1 || got[0] != s {
		t.Errorf("Read = %+v, %v; want [%+v]", got, err, s)
	}
	if _, got, err := e.Lookup(ctx, meta.RootIno, "big"); err != nil || got != a {
		t.Errorf("Lookup = %+v, %v; want %+v", got, err, a)
	}
}
