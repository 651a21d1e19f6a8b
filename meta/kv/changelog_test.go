package kv

import (
	"testing"

	"cairn/meta"
)

// TestAppendChangesOneTransaction: an append of more changes than one
// etcd transaction holds operations becomes visible whole: a reader
// polling the log's end while appends run sees only ends of whole
// appends, and reads every change back numbered in order.
func TestAppendChangesOneTransaction(t *testing.T) {
	ctx := t.Context()
	e := OpenMem()
	t.Cleanup(func() { e.Close() })
	if err := e.SwapMigration(ctx, nil, []byte("atomic appends")); err != nil {
		t.Fatal(err)
	}
	const size, appends = 300, 20
	batch := make([]meta.Change, size)
	for i := range batch {
		batch[i] = meta.Change{Kind: meta.ChangeAfter, Session: 1, Operation: uint64(i), Inodes: []meta.Ino{meta.Ino(i + 1)}}
	}
	done := make(chan error, 1)
	go func() {
		for range appends {
			if _, err := e.AppendChanges(ctx, batch); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	seen := map[uint64]bool{}
	for finished := false; !finished; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			finished = true
		default:
		}
		end, err := e.ChangesEnd(ctx)
		if err != nil {
			t.Fatal(err)
		}
		seen[end] = true
		if end%size != 0 {
			t.Fatalf("ChangesEnd = %d while appends of %d changes ran: part of an append was visible", end, size)
		}
	}
	t.Logf("ends seen: %d distinct", len(seen))
	var all []meta.Change
	for after := uint64(0); ; {
		page, err := e.Changes(ctx, after, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		all = append(all, page...)
		after = page[len(page)-1].Seq
	}
	if len(all) != size*appends {
		t.Fatalf("read %d changes back, want %d", len(all), size*appends)
	}
	for i, c := range all {
		if c.Seq != uint64(i+1) || c.Operation != uint64(i%size) {
			t.Fatalf("change %d read back as %+v", i+1, c)
		}
	}
}
