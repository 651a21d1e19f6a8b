// Package mdtest measures metadata rates the way IOR's mdtest does — the
// same phases under the same names — on a tree built through meta.Engine
// directly, without FUSE and without a client cache.
//
// The shape follows mdtest's options: every thread (mdtest's task, with
// -u) builds a tree of its own, Depth levels below its root with Dirs
// subdirectories per directory (-z, -b); in every directory of the tree
// the directory phases make Items directories and the file phases Items
// files (-I). A stat is a Lookup of the name in its directory (mdtest's
// stat of the path, with the parent already resolved); a read is what an
// open asks of the engine, the attributes and the first chunk's slice list;
// a removal of a file also frees its inode, as a client does when nobody
// holds the file open.
package mdtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"cairn/bench"
	"cairn/bench/phase"
	"cairn/meta"
)

// Config is the tree's shape.
type Config struct {
	Dirs       int // subdirectories per tree directory (mdtest -b)
	Depth      int // levels below each thread's tree root (mdtest -z)
	Items      int // directories, then files, made in every tree directory (mdtest -I)
	Threads    int
	Iterations int
}

// Phases are mdtest's, in the order it runs and reports them.
var Phases = []string{
	"Directory creation", "Directory stat", "Directory removal",
	"File creation", "File stat", "File read", "File removal",
	"Tree creation", "Tree removal",
}

// Nodes is how many directories one thread's tree has.
func (c Config) Nodes() int {
	n, level := 0, 1
	for d := 0; d <= c.Depth; d++ {
		n += level
		level *= c.Dirs
	}
	return n
}

// Rate is one phase of one iteration.
type Rate struct {
	Items   int
	Seconds float64
}

// PerSecond is the phase's rate.
func (r Rate) PerSecond() float64 {
	if r.Seconds <= 0 {
		return 0
	}
	return float64(r.Items) / r.Seconds
}

// Summary is a phase over all iterations, as mdtest's SUMMARY rate table.
type Summary struct {
	Operation string  `json:"operation"`
	Max       float64 `json:"max"`
	Min       float64 `json:"min"`
	Mean      float64 `json:"mean"`
	StdDev    float64 `json:"std_dev"`
}

// Result holds every iteration's rates, by phase name.
type Result struct {
	Config     Config            `json:"config"`
	Path       string            `json:"path"`
	Engine     string            `json:"engine"`
	Iterations []map[string]Rate `json:"-"`
	Summary    []Summary         `json:"summary"`
}

// Run builds, stats and removes the trees under path (made if missing) on
// v, cfg.Iterations times; progress learns of each phase as it runs and
// gets its result line.
func Run(ctx context.Context, v *bench.Volume, path string, cfg Config, progress phase.Reporter) (*Result, error) {
	if cfg.Dirs < 0 || cfg.Depth < 0 || cfg.Items < 0 || cfg.Threads < 1 || cfg.Iterations < 1 {
		return nil, fmt.Errorf("--dirs, --depth and --files must not be negative; --threads and --iterations at least 1")
	}
	if cfg.Depth > 0 && cfg.Dirs == 0 {
		return nil, fmt.Errorf("a tree deeper than 0 needs at least 1 directory per level (--dirs)")
	}
	top, err := mkdirAll(ctx, v, path)
	if err != nil {
		return nil, err
	}
	res := &Result{Config: cfg, Path: path, Engine: v.URL}
	for it := 0; it < cfg.Iterations; it++ {
		progress.Note(fmt.Sprintf("iteration %d of %d", it+1, cfg.Iterations))
		rates, err := iteration(ctx, v, top, cfg, progress)
		if err != nil {
			return nil, err
		}
		res.Iterations = append(res.Iterations, rates)
	}
	res.summarize()
	return res, nil
}

// mkdirAll resolves path from the root, making what is missing.
func mkdirAll(ctx context.Context, v *bench.Volume, path string) (meta.Ino, error) {
	ids := bench.NewIDs(v.Engine)
	dir := meta.RootIno
	for _, name := range strings.Split(path, "/") {
		if name == "" || name == "." {
			continue
		}
		ino, attr, err := v.Engine.Lookup(ctx, dir, name)
		switch {
		case err == nil && !attr.IsDir():
			return 0, fmt.Errorf("%s: %q is not a directory", path, name)
		case errors.Is(err, meta.ErrNotFound):
			if ino, err = ids.Ino(ctx); err != nil {
				return 0, err
			}
			if _, err := v.Engine.Mknod(ctx, v.Cred, dir, name, ino, meta.TypeDirectory, 0755, 0, ""); err != nil {
				return 0, fmt.Errorf("make %q of %s: %w", name, path, err)
			}
		case err != nil:
			return 0, fmt.Errorf("look up %q of %s: %w", name, path, err)
		}
		dir = ino
	}
	return dir, nil
}

// node is one directory of a thread's tree.
type node struct {
	parent meta.Ino
	name   string
	ino    meta.Ino
}

// worker is one thread: its tree and its own id batches.
type worker struct {
	v     *bench.Volume
	ids   *bench.IDs
	id    int
	nodes []node // breadth first: parents before children
	// done counts the items of the phase running.
	done phase.Phase
}

func iteration(ctx context.Context, v *bench.Volume, top meta.Ino, cfg Config, progress phase.Reporter) (map[string]Rate, error) {
	ws := make([]*worker, cfg.Threads)
	for t := range ws {
		ws[t] = &worker{v: v, ids: bench.NewIDs(v.Engine), id: t}
	}
	rates := map[string]Rate{}
	items := cfg.Threads * cfg.Nodes() * cfg.Items
	steps := []struct {
		phase string
		items int
		run   func(w *worker) error
	}{
		{"Tree creation", cfg.Threads * cfg.Nodes(), func(w *worker) error { return w.makeTree(ctx, top, cfg) }},
		{"Directory creation", items, func(w *worker) error { return w.eachItem(cfg, "dir", w.mkdir(ctx)) }},
		{"Directory stat", items, func(w *worker) error { return w.eachItem(cfg, "dir", w.stat(ctx)) }},
		{"Directory removal", items, func(w *worker) error { return w.eachItem(cfg, "dir", w.rmdir(ctx)) }},
		{"File creation", items, func(w *worker) error { return w.eachItem(cfg, "file", w.create(ctx)) }},
		{"File stat", items, func(w *worker) error { return w.eachItem(cfg, "file", w.stat(ctx)) }},
		{"File read", items, func(w *worker) error { return w.eachItem(cfg, "file", w.read(ctx)) }},
		{"File removal", items, func(w *worker) error { return w.eachItem(cfg, "file", w.unlink(ctx)) }},
		{"Tree removal", cfg.Threads * cfg.Nodes(), func(w *worker) error { return w.removeTree(ctx) }},
	}
	for _, s := range steps {
		p := progress.Start(s.phase, int64(s.items), "items")
		for _, w := range ws {
			w.done = p
		}
		start := time.Now()
		if err := parallel(ws, s.run); err != nil {
			return nil, fmt.Errorf("%s: %w", strings.ToLower(s.phase), err)
		}
		r := Rate{Items: s.items, Seconds: time.Since(start).Seconds()}
		rates[s.phase] = r
		p.End(fmt.Sprintf("  %-20s %8d items %12.3f /s", s.phase, r.Items, r.PerSecond()))
	}
	return rates, nil
}

func parallel(ws []*worker, f func(w *worker) error) error {
	var wg sync.WaitGroup
	errs := make([]error, len(ws))
	for i, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = f(w)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (w *worker) makeTree(ctx context.Context, top meta.Ino, cfg Config) error {
	prefix := "mdtest_tree." + strconv.Itoa(w.id) + "."
	w.nodes = w.nodes[:0]
	root, err := w.newNode(ctx, top, prefix+"0")
	if err != nil {
		return err
	}
	level := []node{root}
	next := 1
	for d := 0; d < cfg.Depth; d++ {
		var below []node
		for _, p := range level {
			for k := 0; k < cfg.Dirs; k++ {
				n, err := w.newNode(ctx, p.ino, prefix+strconv.Itoa(next))
				if err != nil {
					return err
				}
				next++
				below = append(below, n)
			}
		}
		level = below
	}
	return nil
}

func (w *worker) newNode(ctx context.Context, parent meta.Ino, name string) (node, error) {
	ino, err := w.ids.Ino(ctx)
	if err != nil {
		return node{}, err
	}
	if _, err := w.v.Engine.Mknod(ctx, w.v.Cred, parent, name, ino, meta.TypeDirectory, 0755, 0, ""); err != nil {
		return node{}, fmt.Errorf("make tree directory %q: %w", name, err)
	}
	n := node{parent: parent, name: name, ino: ino}
	w.nodes = append(w.nodes, n)
	w.done.Add(1)
	return n, nil
}

func (w *worker) removeTree(ctx context.Context) error {
	for i := len(w.nodes) - 1; i >= 0; i-- {
		n := w.nodes[i]
		if err := w.v.Engine.Rmdir(ctx, w.v.Cred, n.parent, n.name); err != nil {
			return fmt.Errorf("remove tree directory %q: %w", n.name, err)
		}
		w.done.Add(1)
	}
	return nil
}

// eachItem calls f for every item of every tree directory, named as mdtest
// names them.
func (w *worker) eachItem(cfg Config, kind string, f func(dir meta.Ino, name string) error) error {
	prefix := kind + ".mdtest." + strconv.Itoa(w.id) + "."
	for _, n := range w.nodes {
		for i := 0; i < cfg.Items; i++ {
			if err := f(n.ino, prefix+strconv.Itoa(i)); err != nil {
				return err
			}
			w.done.Add(1)
		}
	}
	return nil
}

func (w *worker) mkdir(ctx context.Context) func(meta.Ino, string) error {
	return func(dir meta.Ino, name string) error {
		return w.mknod(ctx, dir, name, meta.TypeDirectory, 0755)
	}
}

func (w *worker) create(ctx context.Context) func(meta.Ino, string) error {
	return func(dir meta.Ino, name string) error {
		return w.mknod(ctx, dir, name, meta.TypeFile, 0644)
	}
}

func (w *worker) mknod(ctx context.Context, dir meta.Ino, name string, typ meta.FileType, mode uint16) error {
	ino, err := w.ids.Ino(ctx)
	if err != nil {
		return err
	}
	if _, err := w.v.Engine.Mknod(ctx, w.v.Cred, dir, name, ino, typ, mode, 0, ""); err != nil {
		return fmt.Errorf("create %q: %w", name, err)
	}
	return nil
}

func (w *worker) stat(ctx context.Context) func(meta.Ino, string) error {
	return func(dir meta.Ino, name string) error {
		if _, _, err := w.v.Engine.Lookup(ctx, dir, name); err != nil {
			return fmt.Errorf("stat %q: %w", name, err)
		}
		return nil
	}
}

func (w *worker) read(ctx context.Context) func(meta.Ino, string) error {
	return func(dir meta.Ino, name string) error {
		ino, _, err := w.v.Engine.Lookup(ctx, dir, name)
		if err != nil {
			return fmt.Errorf("open %q: %w", name, err)
		}
		if _, err := w.v.Engine.Read(ctx, ino, 0); err != nil {
			return fmt.Errorf("read %q: %w", name, err)
		}
		return nil
	}
}

func (w *worker) rmdir(ctx context.Context) func(meta.Ino, string) error {
	return func(dir meta.Ino, name string) error {
		if err := w.v.Engine.Rmdir(ctx, w.v.Cred, dir, name); err != nil {
			return fmt.Errorf("remove directory %q: %w", name, err)
		}
		return nil
	}
}

func (w *worker) unlink(ctx context.Context) func(meta.Ino, string) error {
	return func(dir meta.Ino, name string) error { return bench.Unlink(ctx, w.v, dir, name) }
}

func (r *Result) summarize() {
	r.Summary = nil
	for _, p := range Phases {
		s := Summary{Operation: p, Min: math.Inf(1)}
		var sum, sq float64
		for _, it := range r.Iterations {
			x := it[p].PerSecond()
			s.Max, s.Min = max(s.Max, x), min(s.Min, x)
			sum += x
			sq += x * x
		}
		n := float64(len(r.Iterations))
		if n == 0 {
			continue
		}
		s.Mean = sum / n
		if n > 1 {
			s.StdDev = math.Sqrt(max(0, (sq-n*s.Mean*s.Mean)/(n-1)))
		}
		r.Summary = append(r.Summary, s)
	}
}

// WriteText prints the result as mdtest prints its summary.
func (r *Result) WriteText(w io.Writer) error {
	var b strings.Builder
	c := r.Config
	fmt.Fprintf(&b, "cairn mdtest on %s, path %s: %d thread(s), each a tree of %d directories (depth %d, %d per level), %d items per directory\n",
		r.Engine, r.Path, c.Threads, c.Nodes(), c.Depth, c.Dirs, c.Items)
	fmt.Fprintf(&b, "through meta.Engine directly: no FUSE, no client cache\n")
	fmt.Fprintf(&b, "%d tasks, %d files/directories\n\n", c.Threads, c.Threads*c.Nodes()*c.Items*2)
	fmt.Fprintf(&b, "SUMMARY rate: (of %d iterations)\n", len(r.Iterations))
	fmt.Fprintf(&b, "   %-26s %14s %14s %14s %14s\n", "Operation", "Max", "Min", "Mean", "Std Dev")
	fmt.Fprintf(&b, "   %-26s %14s %14s %14s %14s\n", "---------", "---", "---", "----", "-------")
	for _, s := range r.Summary {
		fmt.Fprintf(&b, "   %-26s:%14.3f %14.3f %14.3f %14.3f\n", s.Operation, s.Max, s.Min, s.Mean, s.StdDev)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
