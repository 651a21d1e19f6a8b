package meta_test

import (
	"context"
	"testing"
	"time"

	"cairn/meta"
	"cairn/meta/kv"
)

// TestTrashJobLeader: of two clients, only the lowest live session purges
// the trash, and each run reads the volume's TrashDays again.
func TestTrashJobLeader(t *testing.T) {
	ctx := context.Background()
	eng := kv.OpenMem()
	defer eng.Close()
	f := meta.Format{Name: "t", BlockSize: 4 << 20, Version: meta.FormatVersion, TrashDays: 2}
	if err := eng.Init(ctx, f, false); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var clients []*meta.Client
	for range 2 {
		c := meta.NewClient(eng, meta.ClientConfig{Heartbeat: time.Hour})
		c.SetClock(func() time.Time { return now })
		if err := c.Start(ctx); err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		clients = append(clients, c)
	}
	leader, other := clients[0], clients[1]
	if leader.Session() > other.Session() {
		leader, other = other, leader
	}
	ino, _, err := leader.Mknod(ctx, meta.RootCred, meta.RootIno, "f", meta.TypeFile, 0644, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := other.Unlink(ctx, meta.RootCred, meta.RootIno, "f"); err != nil {
		t.Fatal(err)
	}
	_, hour := meta.TrashHour(now)
	entry := meta.TrashEntryName(meta.RootIno, ino, "f")
	kept := func() bool {
		_, _, err := eng.Lookup(ctx, hour, entry)
		return err == nil
	}

	now = now.Add(25 * time.Hour) // expired for 1 day, not for 2
	f.TrashDays = 1
	if err := eng.Init(ctx, f, true); err != nil {
		t.Fatal(err)
	}
	if err := other.TrashJob(ctx); err != nil || !kept() {
		t.Fatalf("the job of a session that does not lead: %v; the entry kept: %v, want kept", err, kept())
	}
	if other.TrashDays() != 1 {
		t.Errorf("the job read TrashDays %d, want the volume's new 1", other.TrashDays())
	}
	if err := leader.TrashJob(ctx); err != nil || kept() {
		t.Fatalf("the leader's job: %v; the entry kept: %v, want purged", err, kept())
	}
}
