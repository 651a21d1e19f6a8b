package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"

	"cairn/bench/floor"
	"cairn/bench/fsbench"
	"cairn/bench/metabench"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func benchCommand() *cobra.Command {
	c := &cobra.Command{
		Use:   "bench PATH",
		Short: "measure file I/O through PATH, or metadata operations through a mount against its database's floor (--floor); 'bench engines' compares metadata engines",
		Example: "  cairn bench /mnt/vol --threads 4\n" +
			"  cairn bench /mnt/vol --big-file-size 0 --small-files 1000 --json\n" +
			"  cairn bench /mnt/vol --floor --threads 8 --ops 500",
		Args: exactArgs(1),
	}
	var f benchFlags
	f.register(c.Flags())
	c.RunE = func(_ *cobra.Command, pos []string) error { return runBenchPath(c.LocalFlags(), f, pos[0]) }
	c.AddCommand(benchEnginesCommand())
	return c
}

// stringList is a flag that may be given many times.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, " ") }
func (l *stringList) Set(s string) error { *l = append(*l, s); return nil }
func (l *stringList) Type() string       { return "strings" }

func benchEnginesCommand() *cobra.Command {
	c := &cobra.Command{
		Use:   "engines --meta URL…",
		Short: "compare metadata engines: every operation of the metadata interface, timed on each",
		Example: "  cairn bench engines --meta sqlite3:///tmp/b.db --meta redis://localhost:6379/9\n" +
			"  cairn bench engines --meta sqlite=sqlite3:///tmp/b.db --meta pg=postgres://cairn@db/bench --report bench.md",
		Args: exactArgs(0),
	}
	fs := c.Flags()
	var metas stringList
	fs.Var(&metas, "meta", "an engine to measure, URL or LABEL=URL; repeat for each engine (the first is the baseline)")
	report := fs.String("report", "", "write the report (Markdown) to this file, and an SVG chart per operation group beside it")
	asJSON := fs.Bool("json", false, "print one JSON record per engine and operation instead of the table")
	benchtime := fs.String("benchtime", "1s", "time (1s) or count (100x) per operation")
	count := fs.Int("count", 1, "measure every operation this many times on the same volume and report the median")
	c.RunE = func(*cobra.Command, []string) error {
		return runBenchEngines(metas, *report, *asJSON, *benchtime, *count)
	}
	return c
}

func runBenchEngines(metas stringList, report string, asJSON bool, benchtime string, count int) error {
	bt, err := metabench.ParseBenchtime(benchtime)
	if err != nil {
		return err
	}
	targets, err := metabench.ParseTargets(metas)
	if err != nil {
		return err
	}
	if report != "" {
		// Fail before an hour of measuring, not after.
		if err := checkWritable(report); err != nil {
			return err
		}
	}
	if count < 1 {
		return fmt.Errorf("--count must be at least 1")
	}
	progress, done := benchProgress()
	rep, err := metabench.Compare(context.Background(), targets, bt, count, progress)
	done()
	if err != nil {
		return err
	}
	rep.Env.Cairn, _, _ = strings.Cut(versionString(), " "+runtime.Version())
	if report != "" {
		if err := rep.WriteFiles(report); err != nil {
			return err
		}
		inform(os.Stderr, "report written to %s", report)
	}
	if asJSON {
		return rep.WriteJSON(os.Stdout)
	}
	if report == "" {
		return rep.WriteMarkdown(os.Stdout, nil)
	}
	return nil
}

func checkWritable(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0644)
	if err != nil {
		return fmt.Errorf("cannot write the report: %w", err)
	}
	return f.Close()
}

// benchFlags are the flags of 'cairn bench PATH'.
type benchFlags struct {
	threads, smallFiles, ops int
	big, small, block        byteSize
	drop, asJSON, floor      bool
}

func (f *benchFlags) register(fs *pflag.FlagSet) {
	f.big, f.small, f.block = 1<<30, 128<<10, 1<<20
	fs.IntVarP(&f.threads, "threads", "p", 0, "threads, each with files of its own (default 1); with --floor, tasks of the second pass (default 4; the first pass has one, 1 runs only that)")
	fs.Var(&f.big, "big-file-size", "size of each thread's big file (0 skips the big-file phases)")
	fs.Var(&f.small, "small-file-size", "size of each small file")
	fs.Var(&f.block, "block-size", "bytes per read and write call")
	fs.IntVar(&f.smallFiles, "small-files", 100, "small files per thread (0 skips the small-file phases)")
	fs.BoolVar(&f.drop, "drop-caches", true, "drop the kernel page cache between phases (needs root)")
	fs.BoolVar(&f.asJSON, "json", false, "print the result as JSON")
	fs.BoolVar(&f.floor, "floor", false, "instead of file I/O, time metadata operations against the floor of the volume's database: a durable write, a read, and for readdir the engine's own listing of the same directory (PATH must be on a cairn mount)")
	fs.IntVar(&f.ops, "ops", 200, "with --floor: operations of each kind per task")
}

func runBenchPath(fs *pflag.FlagSet, f benchFlags, path string) error {
	if err := floorFlagsAlone(fs, f.floor); err != nil {
		return err
	}
	threads := f.threads
	if !fs.Changed("threads") {
		threads = 1
		if f.floor {
			threads = 4
		}
	}
	if f.floor {
		return runBenchFloor(path, threads, f.ops, f.asJSON)
	}
	big, small, block := f.big, f.small, f.block
	if block == 0 || block > 1<<30 {
		return fmt.Errorf("--block-size must be between 1 byte and 1 GiB")
	}
	cfg := fsbench.Config{Path: path, Threads: threads, BigFileSize: int64(big), BlockSize: int(block),
		SmallFileSize: int64(small), SmallFiles: f.smallFiles, DropCaches: f.drop}
	progress, done := benchProgress()
	res, err := fsbench.Run(cfg, progress)
	done()
	if err != nil {
		return err
	}
	if f.asJSON {
		return res.WriteJSON(os.Stdout)
	}
	return res.WriteText(os.Stdout)
}

// floorFlagsAlone refuses a flag of file I/O with --floor, and a flag of
// --floor without it, rather than ignore it.
func floorFlagsAlone(fs *pflag.FlagSet, floorRun bool) error {
	onlyFloor := map[string]bool{"ops": true}
	var err error
	visitGiven(fs, func(f *pflag.Flag) {
		switch {
		case err != nil, f.Name == "floor", f.Name == "json", f.Name == "threads":
		case floorRun && !onlyFloor[f.Name]:
			err = fmt.Errorf("--%s sets the file I/O benchmark, which --floor does not run", f.Name)
		case !floorRun && onlyFloor[f.Name]:
			err = fmt.Errorf("--%s is an option of --floor", f.Name)
		}
	})
	return err
}

func runBenchFloor(path string, tasks, opsPerTask int, asJSON bool) error {
	if tasks < 1 || opsPerTask < 1 {
		return fmt.Errorf("--threads and --ops must be at least 1")
	}
	cfg := floor.Config{Path: path, Tasks: []int{1}, Ops: opsPerTask}
	if tasks > 1 {
		cfg.Tasks = append(cfg.Tasks, tasks)
	}
	progress, done := benchProgress()
	res, err := floor.Run(context.Background(), cfg, progress)
	done()
	if err != nil {
		return err
	}
	if asJSON {
		return res.WriteJSON(os.Stdout)
	}
	return res.WriteText(os.Stdout)
}
