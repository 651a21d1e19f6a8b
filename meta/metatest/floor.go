package metatest

import (
	"reflect"
	"testing"

	"cairn/meta"
)

// RunFloor checks an engine's meta.FloorProber (see its contract) on a
// fresh volume that open returns and RunFloor formats, behind meta.Checked
// as engines.Open returns engines (scratch gets the engine itself): a read of the
// scratch record before any write succeeds; every write changes the
// record, which scratch reads straight from the database, bypassing the
// engine; each probe after the first of its kind is exactly one round
// trip; and the volume is untouched (usage, the root's listing, the tree).
func RunFloor(t *testing.T, open func(t *testing.T) meta.Engine, scratch func(t *testing.T, e meta.Engine) string) {
	var raw meta.Engine
	x := newEnv(t, func(t *testing.T) meta.Engine { raw = open(t); return meta.Checked(raw) })
	probe, ok := meta.Capability[meta.FloorProber](x.e)
	if !ok {
		t.Fatalf("%T behind meta.Checked offers no meta.FloorProber", raw)
	}
	usage, err := x.e.Usage(x.ctx)
	if err != nil {
		t.Fatal(err)
	}
	root, err := x.e.Readdir(x.ctx, meta.RootIno, "", 100, true)
	if err != nil {
		t.Fatal(err)
	}

	if err := probe.ProbeRead(x.ctx); err != nil {
		t.Fatalf("ProbeRead before any write: %v", err)
	}
	if err := probe.ProbeWrite(x.ctx); err != nil {
		t.Fatalf("first ProbeWrite: %v", err)
	}
	last := scratch(t, raw)
	if last == "" {
		t.Fatalf("after ProbeWrite the scratch record is not in the database")
	}
	for i := 0; i < 3; i++ {
		before := x.e.Stats().RoundTrips
		if err := probe.ProbeWrite(x.ctx); err != nil {
			t.Fatalf("ProbeWrite: %v", err)
		}
		if n := x.e.Stats().RoundTrips - before; n != 1 {
			t.Errorf("ProbeWrite cost %d round trips, want 1", n)
		}
		now := scratch(t, raw)
		if now == last {
			t.Errorf("ProbeWrite did not change the scratch record (still %q)", now)
		}
		last = now
		before = x.e.Stats().RoundTrips
		if err := probe.ProbeRead(x.ctx); err != nil {
			t.Fatalf("ProbeRead: %v", err)
		}
		if n := x.e.Stats().RoundTrips - before; n != 1 {
			t.Errorf("ProbeRead cost %d round trips, want 1", n)
		}
	}

	if after, err := x.e.Usage(x.ctx); err != nil || after != usage {
		t.Errorf("usage %+v (%v) after the probes, want %+v", after, err, usage)
	}
	if after, err := x.e.Readdir(x.ctx, meta.RootIno, "", 100, true); err != nil || !reflect.DeepEqual(after, root) {
		t.Errorf("root lists %v (%v) after the probes, want %v", after, err, root)
	}
	x.verify()
}
