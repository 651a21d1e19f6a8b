package floor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"cairn/bench/fsbench"
	"cairn/bench/phase"
)

// op is one kind of operation, made on item i of a task's directory.
type op struct {
	name     string
	mutation bool
	// items is how many times a task runs it: ops, or fewer for the
	// operations that touch a whole directory.
	items func(ops int) int
	run   func(dir string, i int) error
}

func all(ops int) int             { return ops }
func tenth(ops int) int           { return max(1, ops/10) }
func name(p string, i int) string { return p + strconv.Itoa(i) }

// smallFile is what the write+fsync operation writes: one 4 KiB block.
var smallFile = make([]byte, 4<<10)

// ops are the operations of a pass, in the order they run; each leaves
// what the next needs (files to stat, rename and unlink).
var ops = []op{
	{"mkdir", true, all, func(d string, i int) error { return os.Mkdir(filepath.Join(d, name("d", i)), 0755) }},
	{"create", true, all, func(d string, i int) error {
		f, err := os.OpenFile(filepath.Join(d, name("f", i)), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0644)
		if err != nil {
			return err
		}
		return f.Close()
	}},
	{"write+fsync 4K", true, all, func(d string, i int) error {
		f, err := os.OpenFile(filepath.Join(d, name("f", i)), os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		_, err = f.Write(smallFile)
		if err == nil {
			err = f.Sync()
		}
		return errors.Join(err, f.Close())
	}},
	{"stat", false, all, func(d string, i int) error { _, err := os.Stat(filepath.Join(d, name("f", i))); return err }},
	{"lookup missing", false, all, func(d string, i int) error {
		_, err := os.Stat(filepath.Join(d, name("x", i)))
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("stat of a name never created: %v", err)
	}},
	{readdirOp, false, tenth, func(d string, i int) error { _, err := os.ReadDir(d); return err }},
	{"rename", true, all, func(d string, i int) error {
		return os.Rename(filepath.Join(d, name("f", i)), filepath.Join(d, name("g", i)))
	}},
	{"unlink", true, all, func(d string, i int) error { return os.Remove(filepath.Join(d, name("g", i))) }},
	{"rmdir", true, all, func(d string, i int) error { return os.Remove(filepath.Join(d, name("d", i))) }},
}

// readdirOp lists a task's directory; its floor is the engine's own
// listing of that directory, probed right after it.
const readdirOp = "readdir"

type runner struct {
	cfg      Config
	mount    *fsbench.Mount
	progress phase.Reporter
	prober   prober
	// statsCost is what one reading of .stats costs the mount itself.
	statsCost delta
}

func (r *runner) stats() (*stats, error) { return readStats(r.mount) }

// calibrate measures what reading .stats adds to the counters it reads,
// to take it away from every operation's figures.
func (r *runner) calibrate() error {
	var s [3]*stats
	for i := range s {
		var err error
		if s[i], err = r.stats(); err != nil {
			return err
		}
	}
	r.statsCost = diff(s[1], s[2])
	return nil
}

// pass runs every operation with tasks tasks at once in directory base,
// each followed by a probe of its floor with as many tasks (floorAfter);
// the pass's own floor, for the summary line, is the mean of those
// probes.
func (r *runner) pass(ctx context.Context, base string, tasks int) (Pass, error) {
	p := Pass{Tasks: tasks}
	dirs := make([]string, tasks)
	for t := range dirs {
		dirs[t] = filepath.Join(base, name("task", t))
		if err := os.MkdirAll(dirs[t], 0755); err != nil {
			return p, err
		}
	}
	// The first probe may create the scratch record; keep it out.
	if _, err := r.prober.measure(ctx, 1, 1); err != nil {
		return p, err
	}
	var probes probeMean
	for _, o := range ops {
		n := o.items(r.cfg.Ops)
		s0, err := r.stats()
		if err != nil {
			return p, err
		}
		progress := r.progress.Start(o.name, int64(n*tasks), "operations")
		d, err := fsbench.Parallel(tasks, func(t int) error {
			for i := 0; i < n; i++ {
				if err := o.run(dirs[t], i); err != nil {
					return err
				}
				progress.Add(1)
			}
			return nil
		})
		if err != nil {
			return p, fmt.Errorf("%s: %w", o.name, err)
		}
		s1, err := r.stats()
		if err != nil {
			return p, err
		}
		count := float64(n * tasks)
		used := diff(s0, s1).minus(r.statsCost)
		row := Row{Op: o.name, Mutation: o.mutation, Us: perOp(d, n),
			RoundTrips: used.roundTrips / count, Requests: map[string]float64{}}
		for k, v := range used.requests {
			row.Requests[k] = v / count
		}
		progress.End(fmt.Sprintf("  %-15s %9.1f µs  %5.2f rtt", o.name, row.Us, row.RoundTrips))
		if row.Floor, row.FloorUs, err = r.floorAfter(ctx, o, dirs[0], tasks, &p.Floor, &probes); err != nil {
			return p, err
		}
		row.Ratio = row.Us / row.FloorUs
		p.Rows = append(p.Rows, row)
	}
	p.Floor.WriteUs, p.Floor.ReadUs = probes.mean()
	r.progress.Note(fmt.Sprintf("%d task(s): floor write %.0f µs, read %.0f µs (mean of %d probes)", tasks, p.Floor.WriteUs, p.Floor.ReadUs, probes.n))
	return p, nil
}

// probeMean sums a pass's probes of the write and read floors.
type probeMean struct {
	write, read float64
	n           int
}

func (m *probeMean) add(f Floor) { m.write, m.read, m.n = m.write+f.WriteUs, m.read+f.ReadUs, m.n+1 }

func (m *probeMean) mean() (write, read float64) {
	if m.n == 0 {
		return 0, 0
	}
	return m.write / float64(m.n), m.read / float64(m.n)
}

// floorAfter probes, right after operation o ran with tasks tasks, the
// floor it is compared with: which one and its time in µs. For readdir
// that is the engine's own listing of dir (also kept in pass), or the
// read when the mount cannot list (an older release). A probe of the
// write and the read is added to probes.
func (r *runner) floorAfter(ctx context.Context, o op, dir string, tasks int, pass *Floor, probes *probeMean) (string, float64, error) {
	if o.name == readdirOp {
		var err error
		if pass.ListUs, pass.ListEntries, err = r.listingFloor(ctx, dir, tasks, r.cfg.Ops); err != nil {
			return "", 0, err
		}
		if pass.ListUs > 0 {
			return floorListing, pass.ListUs, nil
		}
	}
	f, err := r.prober.measure(ctx, tasks, r.cfg.Ops)
	if err != nil {
		return "", 0, err
	}
	probes.add(f)
	if o.mutation {
		return floorWrite, f.WriteUs, nil
	}
	return floorRead, f.ReadUs, nil
}

// listingFloor probes the engine's own listing of dir, tasks at once and
// ops each (as many as the other probes: more than the readdir operation
// makes, for a steadier figure), as the readdir operation just listed it:
// what one listing costs in µs, and its entries.
func (r *runner) listingFloor(ctx context.Context, dir string, tasks, ops int) (float64, int, error) {
	rel, err := filepath.Rel(r.mount.Point, dir)
	if err != nil {
		return 0, 0, fmt.Errorf("%s on the mount at %s: %w", dir, r.mount.Point, err)
	}
	// The first listing warms the engine's caches; keep it out.
	if _, err := r.prober.measureListing(ctx, rel, dir, 1, 1); err != nil {
		return 0, 0, err
	}
	l, err := r.prober.measureListing(ctx, rel, dir, tasks, ops)
	if err != nil {
		return 0, 0, err
	}
	r.progress.Note(fmt.Sprintf("%d task(s): floor of a listing of %d entries %.0f µs", tasks, l.entries, l.us))
	return l.us, l.entries, nil
}

// perOp is the mean time in µs of one operation of a task that made ops
// of them in wall time d, while the other tasks made as many at once.
func perOp(d time.Duration, ops int) float64 {
	return float64(d.Nanoseconds()) / 1000 / float64(ops)
}
