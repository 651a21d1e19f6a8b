package control

import (
	"fmt"

	"cairn/meta"
	"cairn/vfs"
)

// floor times the cheapest durable write and read of the volume's
// database from the mount's own connection (meta.FloorProber), for 'cairn
// bench --floor': it needs no password and works on engines only one
// process may open (Badger). The probes touch a scratch record, never the
// volume, so any user of the mount may ask. With a Path, it times the
// engine's listing of that directory instead (floorListing).
func (c *call) floor() (any, error) {
	threads, ops := c.req.Threads, c.req.Ops
	if threads < 1 || ops < 1 || threads*ops > maxFloorProbes {
		return nil, fmt.Errorf("a floor probe wants 1 or more threads and probes, at most %d in all", maxFloorProbes)
	}
	if c.req.Path != "" {
		return c.floorListing(threads, ops)
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

// floorListing times the engine's own listing of directory Path with
// attributes (meta.MeasureListing), in the pages the mount lists it in:
// the floor of a readdir through the mount. The caller must be allowed to
// list the directory.
func (c *call) floorListing(threads, ops int) (any, error) {
	at, err := c.resolveShown(c.req.Path, c.shown())
	if err != nil {
		return nil, err
	}
	if !at.attr.IsDir() {
		return nil, fmt.Errorf("%s: %w", c.shown(), meta.ErrNotDir)
	}
	if err := meta.Access(&at.attr, c.cred, meta.MayRead); err != nil {
		return nil, fmt.Errorf("%s: %w", c.shown(), err)
	}
	d, n, err := meta.MeasureListing(c.ctx, c.v.Client().Engine(), at.ino, vfs.DirPage, threads, ops)
	if err != nil {
		return nil, fmt.Errorf("probe a listing of %s: %w", c.shown(), err)
	}
	return FloorTimes{ListNs: d.Nanoseconds(), ListEntries: n}, nil
}
