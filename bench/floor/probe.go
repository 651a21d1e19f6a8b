package floor

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"cairn/control"
	"cairn/meta"
	"cairn/meta/engines"
	"cairn/vfs"
	"cairn/volume"
)

// prober measures the floor of the volume's database: through the
// mount's control channel (mountProber), or, for a mount without one, on
// a connection of the benchmark's own (engineProber).
type prober interface {
	measure(ctx context.Context, tasks, ops int) (Floor, error)
	// measureListing times the engine's own listing with attributes of
	// directory dir (a path from the mount's root; shown is how to name
	// it), tasks at once, ops each: the floor of a readdir. A mount of an
	// older release answers a zero listing.
	measureListing(ctx context.Context, dir, shown string, tasks, ops int) (listing, error)
	close()
}

// listing is the floor of a readdir: one listing's time and its entries.
type listing struct {
	us      float64
	entries int
}

// openProberFor picks the prober for the mount whose .stats is s.
func openProberFor(s *stats) (prober, error) {
	if s.Control != "" {
		return &mountProber{address: s.Control}, nil
	}
	return openProber(s.MetaURL)
}

// mountProber asks the mount to probe its own connection: no password is
// needed, and it works on engines only one process may open (Badger).
type mountProber struct{ address string }

func (p *mountProber) measure(ctx context.Context, tasks, ops int) (Floor, error) {
	raw, err := control.Call(ctx, p.address, control.Request{Op: control.OpFloor, Threads: tasks, Ops: ops}, nil, nil)
	if err != nil {
		return Floor{}, fmt.Errorf("measure the floor through the mount: %w", err)
	}
	var t control.FloorTimes
	if err := json.Unmarshal(raw, &t); err != nil {
		return Floor{}, fmt.Errorf("the mount's floor answer: %w", err)
	}
	return Floor{WriteUs: perOp(time.Duration(t.WriteNs), ops), ReadUs: perOp(time.Duration(t.ReadNs), ops)}, nil
}

func (p *mountProber) measureListing(ctx context.Context, dir, shown string, tasks, ops int) (listing, error) {
	req := control.Request{Op: control.OpFloor, Threads: tasks, Ops: ops, Path: dir, Shown: shown}
	raw, err := control.Call(ctx, p.address, req, nil, nil)
	if err != nil {
		return listing{}, fmt.Errorf("measure a listing's floor through the mount: %w", err)
	}
	var t control.FloorTimes
	if err := json.Unmarshal(raw, &t); err != nil {
		return listing{}, fmt.Errorf("the mount's floor answer: %w", err)
	}
	return listing{us: perOp(time.Duration(t.ListNs), ops), entries: t.ListEntries}, nil
}

func (p *mountProber) close() {}

// engineProber is a connection of the benchmark's own to the volume's
// database.
type engineProber struct {
	engine meta.Engine
	probe  meta.FloorProber
	masked bool // the URL had its password masked
}

// passwordHint is added to a failure to reach a database whose URL the
// mount reported without its password.
const passwordHint = " (the mount reports its metadata URL without the password: give it in META_PASSWORD, or REDIS_PASSWORD for Redis)"

// openProber connects to the metadata URL a mount reports. The URL has its
// password masked; the engines read it from the environment instead
// (REDIS_PASSWORD, META_PASSWORD), as 'cairn mount' does when the URL
// holds none.
func openProber(maskedURL string) (*engineProber, error) {
	url := engines.WithoutPassword(maskedURL)
	masked := url != maskedURL
	e, err := volume.OpenEngine(url)
	if err != nil {
		err = fmt.Errorf("connect to the volume's database to measure its floor: %w", err)
		if masked {
			err = fmt.Errorf("%w%s", err, passwordHint)
		}
		return nil, err
	}
	p, ok := meta.Capability[meta.FloorProber](e)
	if !ok {
		e.Close()
		return nil, fmt.Errorf("the %s engine cannot measure its floor (no meta.FloorProber)", e.Name())
	}
	return &engineProber{engine: e, probe: p, masked: masked}, nil
}

func (p *engineProber) close() { p.engine.Close() }

// measure returns the mean time of one probe write and one probe read,
// with tasks probes running at once, ops of each per task.
func (p *engineProber) measure(ctx context.Context, tasks, ops int) (Floor, error) {
	f, err := p.probeAll(ctx, tasks, ops)
	if err != nil && p.masked {
		err = fmt.Errorf("%w%s", err, passwordHint)
	}
	return f, err
}

func (p *engineProber) probeAll(ctx context.Context, tasks, ops int) (Floor, error) {
	write, read, err := meta.MeasureFloor(ctx, p.probe, tasks, ops)
	if err != nil {
		return Floor{}, err
	}
	return Floor{WriteUs: perOp(write, ops), ReadUs: perOp(read, ops)}, nil
}

// measureListing resolves dir from the volume's root: a mount without a
// control channel (an earlier release's) reports no sub-directory, so on
// one mounted with --subdir the probe would list the directory of that
// path in the whole volume.
func (p *engineProber) measureListing(ctx context.Context, dir, shown string, tasks, ops int) (listing, error) {
	ino, err := meta.ResolvePath(ctx, p.engine, filepath.ToSlash(dir))
	if err != nil {
		return listing{}, err
	}
	d, n, err := meta.MeasureListing(ctx, p.engine, ino, vfs.DirPage, tasks, ops)
	if err != nil {
		return listing{}, fmt.Errorf("probe a listing of %s: %w", shown, err)
	}
	return listing{us: perOp(d, ops), entries: n}, nil
}
