package control

import (
	"fmt"

	"cairn/meta"
)

// floor times the cheapest durable write and read of the volume's
// database from the mount's own connection (meta.FloorProber), for 'cairn
// bench --floor': it needs no password and works on engines only one
// process may open (Badger). The probes touch a scratch record, never the
// volume, so any user of the mount may ask.
func (c *call) floor() (any, error) {
	threads, ops := c.req.Threads, c.req.Ops
	if threads < 1 || ops < 1 || threads*ops > maxFloorProbes {
		return nil, fmt.Errorf("a floor probe wants 1 or more threads and probes, at most %d in all", maxFloorProbes)
	}
	probe, ok := meta.Capability[meta.FloorProber](c.v.Client().Engine())
	if !ok {
		return nil, fmt.Errorf("the %s engine cannot measure its floor (no meta.FloorProber)", c.v.Client().Engine().Name())
	}
	write, read, err := meta.MeasureFloor(c.ctx, probe, threads, ops)
	if err != nil {
		return nil, fmt.Errorf("probe the database: %w", err)
	}
	return FloorTimes{WriteNs: write.Nanoseconds(), ReadNs: read.Nanoseconds()}, nil
}
