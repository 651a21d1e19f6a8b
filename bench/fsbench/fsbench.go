// Package fsbench measures file I/O through a path: a cairn mount or any
// local directory, so that the two can be compared column for column. It
// writes and reads big files, writes, reads and stats small files, with
// every thread working on files of its own, and fsyncs every file it writes
// before closing it, so that a local disk and a mount are compared at
// the same durability.
//
// fsbench uses ordinary system calls only; what it knows of cairn is how to
// find a mount's own metrics (mountmetrics.go).
package fsbench

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"cairn/bench/phase"
)

// Config is what to run.
type Config struct {
	Path          string `json:"path"`
	Threads       int    `json:"threads"`
	BigFileSize   int64  `json:"big_file_size"` // per thread; 0 skips the big-file phases
	BlockSize     int    `json:"block_size"`    // bytes per read and write call
	SmallFileSize int64  `json:"small_file_size"`
	SmallFiles    int    `json:"small_files"` // per thread; 0 skips the small-file phases
	DropCaches    bool   `json:"drop_caches"` // drop the kernel page cache between phases (root only)
}

// Defaults are the sizes of the seed's bench: one 1 GiB file and 100 files
// of 128 KiB per thread, in 1 MiB calls.
func Defaults(path string) Config {
	return Config{Path: path, Threads: 1, BigFileSize: 1 << 30, BlockSize: 1 << 20,
		SmallFileSize: 128 << 10, SmallFiles: 100, DropCaches: true}
}

// Phase is one measured step.
type Phase struct {
	Name    string  `json:"name"`
	Value   float64 `json:"value"`
	Unit    string  `json:"unit"`
	Cost    float64 `json:"cost"`
	CostPer string  `json:"cost_unit"`
	Seconds float64 `json:"seconds"`
}

// Result is a whole run.
type Result struct {
	Config  Config   `json:"config"`
	Phases  []Phase  `json:"phases"`
	Cache   string   `json:"page_cache"`
	Mount   *Mount   `json:"mount,omitempty"`
	Metrics []Metric `json:"mount_metrics"`
	Notes   []string `json:"notes,omitempty"`
}

// Run runs every phase in a fresh directory under cfg.Path, which it
// removes at the end. progress learns of each phase as it runs and gets
// its result line.
func Run(cfg Config, progress phase.Reporter) (*Result, error) {
	if cfg.Threads < 1 || cfg.BlockSize < 1 || cfg.BigFileSize < 0 || cfg.SmallFileSize < 0 || cfg.SmallFiles < 0 {
		return nil, fmt.Errorf("threads and block size must be at least 1, sizes and counts not negative")
	}
	st, err := os.Stat(cfg.Path)
	if err != nil {
		return nil, fmt.Errorf("benchmark directory: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", cfg.Path)
	}
	abs, err := filepath.Abs(cfg.Path)
	if err != nil {
		return nil, err
	}
	res := &Result{Config: cfg}
	res.Mount = FindMount(abs)
	dir, err := os.MkdirTemp(abs, "cairn-bench-")
	if err != nil {
		return nil, fmt.Errorf("make the benchmark's directory: %w", err)
	}
	defer os.RemoveAll(dir)

	b := &runner{cfg: cfg, dir: dir, res: res, progress: progress}
	b.dropCaches()
	before := readMetrics(res.Mount)
	if res.Mount == nil || !res.Mount.Cairn {
		// Say so up front: a path whose mount failed is a plain directory.
		on := "a file system of unknown type"
		if res.Mount != nil {
			on = res.Mount.FSType + " mounted at " + res.Mount.Point
		}
		note := fmt.Sprintf("%s is not on a cairn mount but on %s: these are that file system's figures", cfg.Path, on)
		res.Notes = append(res.Notes, note)
		progress.Note("note: " + note)
	}
	if cfg.BigFileSize > 0 {
		if err := b.bigFiles(); err != nil {
			return nil, err
		}
	}
	if cfg.SmallFiles > 0 {
		if err := b.smallFiles(); err != nil {
			return nil, err
		}
	}
	res.Metrics = metricRows(res.Mount, before, readMetrics(res.Mount))
	return res, nil
}

type runner struct {
	cfg      Config
	dir      string
	res      *Result
	progress phase.Reporter
	buf      []byte
}

func (b *runner) big(t int) string { return filepath.Join(b.dir, "big."+strconv.Itoa(t)) }

func (b *runner) small(t, i int) string {
	return filepath.Join(b.dir, "small."+strconv.Itoa(t), "f."+strconv.Itoa(i))
}

func (b *runner) bigFiles() error {
	n := float64(b.cfg.Threads)
	mib := float64(b.cfg.BigFileSize) * n / (1 << 20)
	bytes := b.cfg.BigFileSize * int64(b.cfg.Threads)
	p := b.progress.Start("Write big file", bytes, "bytes")
	d, err := b.parallel(func(t int) error { return writeFile(b.big(t), b.cfg.BigFileSize, b.cfg.BlockSize, p.Add) })
	if err != nil {
		return fmt.Errorf("write big file: %w", err)
	}
	b.add(p, Phase{Name: "Write big file", Value: mib / d, Unit: "MiB/s", Cost: d, CostPer: "s/file", Seconds: d})
	b.dropCaches()
	p = b.progress.Start("Read big file", bytes, "bytes")
	d, err = b.parallel(func(t int) error { return readFile(b.big(t), b.cfg.BlockSize, p.Add) })
	if err != nil {
		return fmt.Errorf("read big file: %w", err)
	}
	b.add(p, Phase{Name: "Read big file", Value: mib / d, Unit: "MiB/s", Cost: d, CostPer: "s/file", Seconds: d})
	b.dropCaches()
	return nil
}

func (b *runner) smallFiles() error {
	for t := 0; t < b.cfg.Threads; t++ {
		if err := os.Mkdir(filepath.Dir(b.small(t, 0)), 0755); err != nil {
			return err
		}
	}
	files := float64(b.cfg.Threads * b.cfg.SmallFiles)
	each := func(p phase.Phase, f func(path string) error) func(t int) error {
		return func(t int) error {
			for i := 0; i < b.cfg.SmallFiles; i++ {
				if err := f(b.small(t, i)); err != nil {
					return err
				}
				p.Add(1)
			}
			return nil
		}
	}
	// Cost is per file and thread: the time one file takes one thread.
	run := func(name string, f func(string) error) error {
		p := b.progress.Start(name, int64(files), "files")
		d, err := b.parallel(each(p, f))
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		b.add(p, Phase{Name: name, Value: files / d, Unit: "files/s", Cost: d * 1000 / float64(b.cfg.SmallFiles), CostPer: "ms/file", Seconds: d})
		return nil
	}
	ignore := func(int64) {}
	if err := run("Write small file", func(p string) error { return writeFile(p, b.cfg.SmallFileSize, b.cfg.BlockSize, ignore) }); err != nil {
		return err
	}
	b.dropCaches()
	if err := run("Read small file", func(p string) error { return readFile(p, b.cfg.BlockSize, ignore) }); err != nil {
		return err
	}
	b.dropCaches()
	return run("Stat file", func(p string) error { _, err := os.Stat(p); return err })
}

// add records the result of a phase and ends its progress with it.
func (b *runner) add(progress phase.Phase, p Phase) {
	b.res.Phases = append(b.res.Phases, p)
	progress.End(fmt.Sprintf("  %-17s %10.2f %-8s %8.3f %s", p.Name, p.Value, p.Unit, p.Cost, p.CostPer))
}

// parallel runs f for every thread at once and returns the wall time in
// seconds.
func (b *runner) parallel(f func(t int) error) (float64, error) {
	d, err := Parallel(b.cfg.Threads, f)
	return d.Seconds(), err
}

// Parallel runs f for tasks tasks at once, each with its own number, and
// returns the wall time and every task's error.
func Parallel(tasks int, f func(t int) error) (time.Duration, error) {
	var wg sync.WaitGroup
	errs := make([]error, tasks)
	start := time.Now()
	for t := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[t] = f(t)
		}()
	}
	wg.Wait()
	return time.Since(start), errors.Join(errs...)
}

// dropCaches empties the kernel page cache, so that reads come from the
// file system and not from memory, and records whether it could.
func (b *runner) dropCaches() {
	if !b.cfg.DropCaches {
		b.res.Cache = "kept (--drop-caches=false): reads may come from the page cache"
		return
	}
	if os.Geteuid() != 0 {
		b.res.Cache = "not dropped: not root; reads may come from the page cache"
		return
	}
	syncAll()
	if err := os.WriteFile("/proc/sys/vm/drop_caches", []byte("3\n"), 0); err != nil {
		b.res.Cache = "not dropped: " + err.Error() + "; reads may come from the page cache"
		return
	}
	if b.res.Cache == "" {
		b.res.Cache = "dropped between phases"
	}
}

// writeFile writes size bytes to path, block bytes a call, telling done
// of each call's bytes.
func writeFile(path string, size int64, block int, done func(int64)) (err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0644)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	buf := make([]byte, min(int64(block), max(size, 1)))
	fill(buf, path)
	for left := size; left > 0; {
		n := min(int64(len(buf)), left)
		if _, err := f.Write(buf[:n]); err != nil {
			return err
		}
		done(n)
		left -= n
	}
	return f.Sync()
}

// readFile reads path to its end, block bytes a call, telling done of
// each call's bytes.
func readFile(path string, block int, done func(int64)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	buf := make([]byte, block)
	for {
		n, err := f.Read(buf)
		done(int64(n))
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// fill makes data that compression cannot shrink to nothing: a cheap
// pseudo-random sequence seeded by the file's name.
func fill(buf []byte, seed string) {
	x := uint64(len(seed)) + 0x9e3779b97f4a7c15
	for _, c := range seed {
		x = x*31 + uint64(c)
	}
	for i := range buf {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		buf[i] = byte(x)
	}
}
