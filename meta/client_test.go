package meta_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"cairn/meta"
	"cairn/meta/kv"
)

// countingEngine is a real engine that counts its id reservations.
type countingEngine struct {
	meta.Engine
	nextInodes atomic.Int64
}

func (e *countingEngine) NextInodes(ctx context.Context, n uint64) (meta.Ino, error) {
	e.nextInodes.Add(1)
	return e.Engine.NextInodes(ctx, n)
}

func newClient(t *testing.T, cfg meta.ClientConfig) (*meta.Client, *countingEngine) {
	t.Helper()
	ctx := context.Background()
	eng := &countingEngine{Engine: kv.OpenMem()}
	if err := eng.Init(ctx, meta.Format{Name: "t", BlockSize: 4 << 20, Version: meta.FormatVersion}, false); err != nil {
		t.Fatal(err)
	}
	c := meta.NewClient(eng, cfg)
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Close(ctx)
		eng.Close()
	})
	return c, eng
}

var ctx = context.Background()

func TestClientBatchesInodes(t *testing.T) {
	c, eng := newClient(t, meta.ClientConfig{InodeBatch: 50})
	seen := map[meta.Ino]bool{}
	for i := 0; i < 120; i++ {
		ino, _, err := c.Mknod(ctx, meta.RootCred, meta.RootIno, "f"+string(rune('a'+i%26))+string(rune('a'+i/26)), meta.TypeFile, 0644, 0, "")
		if err != nil {
			t.Fatal(err)
		}
		if seen[ino] {
			t.Fatalf("inode %d handed out twice", ino)
		}
		seen[ino] = true
	}
	if n := eng.nextInodes.Load(); n != 3 {
		t.Fatalf("%d NextInodes calls for 120 creates in batches of 50, want 3", n)
	}
}

func TestClientCachesFollowOwnChanges(t *testing.T) {
	c, _ := newClient(t, meta.ClientConfig{AttrTimeout: time.Hour, EntryTimeout: time.Hour, DirEntryTimeout: time.Hour})
	ino, _, err := c.Mknod(ctx, meta.RootCred, meta.RootIno, "f", meta.TypeFile, 0644, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Lookup(ctx, meta.RootCred, meta.RootIno, "f"); err != nil {
		t.Fatal(err)
	}
	mode := uint16(0600)
	if _, err := c.SetAttr(ctx, meta.RootCred, ino, meta.SetAttr{Mode: &mode}); err != nil {
		t.Fatal(err)
	}
	if a, _ := c.GetAttr(ctx, ino); a.Mode != 0600 {
		t.Fatalf("cached mode %o after chmod 600", a.Mode)
	}
	if _, _, _, err := c.Rename(ctx, meta.RootCred, meta.RootIno, "f", meta.RootIno, "g", 0); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Lookup(ctx, meta.RootCred, meta.RootIno, "f"); !errors.Is(err, meta.ErrNotFound) {
		t.Fatalf("lookup of the old name after rename: %v", err)
	}
	if got, _, err := c.Lookup(ctx, meta.RootCred, meta.RootIno, "g"); err != nil || got != ino {
		t.Fatalf("lookup of the new name: %d %v", got, err)
	}
	if _, _, err := c.Unlink(ctx, meta.RootCred, meta.RootIno, "g"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Lookup(ctx, meta.RootCred, meta.RootIno, "g"); !errors.Is(err, meta.ErrNotFound) {
		t.Fatalf("lookup after unlink: %v", err)
	}
}

func TestClientReleasesOrphanOnLastClose(t *testing.T) {
	c, _ := newClient(t, meta.ClientConfig{})
	ino, _, err := c.Mknod(ctx, meta.RootCred, meta.RootIno, "f", meta.TypeFile, 0644, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	c.Opened(ino)
	c.Opened(ino)
	if _, _, err := c.Unlink(ctx, meta.RootCred, meta.RootIno, "f"); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if _, err := c.GetAttrFresh(ctx, ino); err != nil {
			t.Fatalf("open unlinked inode gone before its last close: %v", err)
		}
		if _, err := c.Closed(ctx, ino); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.GetAttrFresh(ctx, ino); !errors.Is(err, meta.ErrNotFound) {
		t.Fatalf("unlinked inode after its last close: %v", err)
	}
}

func TestClientChecksSearchPermission(t *testing.T) {
	c, _ := newClient(t, meta.ClientConfig{CheckPermission: true})
	dir, _, err := c.Mknod(ctx, meta.RootCred, meta.RootIno, "private", meta.TypeDirectory, 0700, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Mknod(ctx, meta.RootCred, dir, "f", meta.TypeFile, 0644, 0, ""); err != nil {
		t.Fatal(err)
	}
	nobody := meta.Cred{Uid: 65534, Gid: 65534}
	if _, _, err := c.Lookup(ctx, nobody, dir, "f"); !errors.Is(err, meta.ErrAccess) {
		t.Fatalf("lookup in a 0700 directory by another user: %v, want EACCES", err)
	}
	if _, _, err := c.Lookup(ctx, meta.RootCred, dir, "f"); err != nil {
		t.Fatalf("lookup by root: %v", err)
	}
}

func TestClientSession(t *testing.T) {
	c, eng := newClient(t, meta.ClientConfig{Session: meta.SessionInfo{Hostname: "h", MountPoint: "/m"}})
	ss, err := eng.ListSessions(ctx)
	if err != nil || len(ss) != 1 || ss[0].ID != c.Session() || ss[0].MountPoint != "/m" {
		t.Fatalf("sessions %+v %v", ss, err)
	}
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if ss, _ := eng.ListSessions(ctx); len(ss) != 0 {
		t.Fatalf("sessions after close: %+v", ss)
	}
}
