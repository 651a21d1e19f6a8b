package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strings"

	"cairn/bench/floor"
	"cairn/bench/fsbench"
	"cairn/bench/metabench"
)

func benchCommand() command {
	return command{
		usage:   "bench PATH [--floor] | bench engines --meta URL...",
		summary: "measure file I/O through PATH, metadata operations through a mount against its database's floor (--floor), or compare metadata engines",
		run: func(args []string) error {
			if len(args) > 0 && args[0] == "engines" {
				return runBenchEngines(args[1:])
			}
			return runBenchPath(args)
		},
	}
}

// stringList is a flag that may be given many times.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, " ") }
func (l *stringList) Set(s string) error { *l = append(*l, s); return nil }

func runBenchEngines(args []string) error {
	fs := flag.NewFlagSet("bench engines", flag.ContinueOnError)
	var metas stringList
	fs.Var(&metas, "meta", "an engine to measure, URL or LABEL=URL; repeat for each engine (the first is the baseline)")
	report := fs.String("report", "", "write the report (Markdown) to this file, and an SVG chart per operation group beside it")
	asJSON := fs.Bool("json", false, "print one JSON record per engine and operation instead of the table")
	benchtime := fs.String("benchtime", "1s", "time (1s) or count (100x) per operation")
	count := fs.Int("count", 1, "measure every operation this many times on the same volume and report the median")
	if _, err := parseArgs(fs, args, 0); err != nil {
		return err
	}
	bt, err := metabench.ParseBenchtime(*benchtime)
	if err != nil {
		return err
	}
	targets, err := metabench.ParseTargets(metas)
	if err != nil {
		return err
	}
	if *report != "" {
		// Fail before an hour of measuring, not after.
		if err := checkWritable(*report); err != nil {
			return err
		}
	}
	if *count < 1 {
		return fmt.Errorf("--count must be at least 1")
	}
	rep, err := metabench.Compare(context.Background(), targets, bt, *count, os.Stderr)
	if err != nil {
		return err
	}
	rep.Env.Cairn, _, _ = strings.Cut(versionString(), " "+runtime.Version())
	if *report != "" {
		if err := rep.WriteFiles(*report); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "report written to %s\n", *report)
	}
	if *asJSON {
		return rep.WriteJSON(os.Stdout)
	}
	if *report == "" {
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

func runBenchPath(args []string) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	threads := fs.Int("p", 1, "threads, each with files of its own")
	big := byteSize(1 << 30)
	small := byteSize(128 << 10)
	block := byteSize(1 << 20)
	fs.Var(&big, "big-file-size", "size of each thread's big file (0 skips the big-file phases)")
	fs.Var(&small, "small-file-size", "size of each small file")
	fs.Var(&block, "block-size", "bytes per read and write call")
	smallFiles := fs.Int("small-files", 100, "small files per thread (0 skips the small-file phases)")
	drop := fs.Bool("drop-caches", true, "drop the kernel page cache between phases (needs root)")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	floorRun := fs.Bool("floor", false, "instead of file I/O, time metadata operations against the floor of the volume's database (PATH must be on a cairn mount)")
	tasks := fs.Int("threads", 4, "with --floor: tasks of the second pass (the first has one; 1 runs only that)")
	opsPerTask := fs.Int("ops", 200, "with --floor: operations of each kind per task")
	pos, err := parseArgs(fs, args, 1)
	if err != nil {
		return err
	}
	if err := floorFlagsAlone(fs, *floorRun); err != nil {
		return err
	}
	if *floorRun {
		return runBenchFloor(pos[0], *tasks, *opsPerTask, *asJSON)
	}
	if block == 0 || block > 1<<30 {
		return fmt.Errorf("--block-size must be between 1 byte and 1 GiB")
	}
	cfg := fsbench.Config{Path: pos[0], Threads: *threads, BigFileSize: int64(big), BlockSize: int(block),
		SmallFileSize: int64(small), SmallFiles: *smallFiles, DropCaches: *drop}
	res, err := fsbench.Run(cfg, os.Stderr)
	if err != nil {
		return err
	}
	if *asJSON {
		return res.WriteJSON(os.Stdout)
	}
	return res.WriteText(os.Stdout)
}

// floorFlagsAlone refuses a flag of file I/O with --floor, and a flag of
// --floor without it, rather than ignore it.
func floorFlagsAlone(fs *flag.FlagSet, floorRun bool) error {
	onlyFloor := map[string]bool{"threads": true, "ops": true}
	var err error
	fs.Visit(func(f *flag.Flag) {
		dash := "--"
		if len(f.Name) == 1 {
			dash = "-"
		}
		switch {
		case err != nil, f.Name == "floor", f.Name == "json":
		case floorRun && !onlyFloor[f.Name]:
			err = fmt.Errorf("%s%s sets the file I/O benchmark, which --floor does not run", dash, f.Name)
		case !floorRun && onlyFloor[f.Name]:
			err = fmt.Errorf("%s%s is an option of --floor (file I/O threads are -p)", dash, f.Name)
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
	res, err := floor.Run(context.Background(), cfg, os.Stderr)
	if err != nil {
		return err
	}
	if asJSON {
		return res.WriteJSON(os.Stdout)
	}
	return res.WriteText(os.Stdout)
}
