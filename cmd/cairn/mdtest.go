package main

import (
	"context"
	"encoding/json"
	"flag"
	"os"

	"cairn/bench"
	"cairn/bench/mdtest"
)

func mdtestCommand() command {
	return command{
		usage:   "mdtest META-URL PATH",
		summary: "mdtest's metadata rates on a tree built in PATH of a volume, through the library (no FUSE)",
		run:     runMdtest,
	}
}

func runMdtest(args []string) error {
	fs := flag.NewFlagSet("mdtest", flag.ContinueOnError)
	var cfg mdtest.Config
	fs.IntVar(&cfg.Dirs, "dirs", 3, "subdirectories per tree directory (mdtest -b)")
	fs.IntVar(&cfg.Depth, "depth", 1, "levels of the tree below its root (mdtest -z)")
	fs.IntVar(&cfg.Items, "files", 100, "directories, then files, made in every tree directory (mdtest -I)")
	fs.IntVar(&cfg.Threads, "threads", 1, "threads, each with a tree of its own (mdtest tasks with -u)")
	fs.IntVar(&cfg.Iterations, "iterations", 1, "times to repeat the whole test (mdtest -i)")
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	pos, err := parseArgs(fs, args, 2)
	if err != nil {
		return err
	}
	ctx := context.Background()
	v, err := openVolume(ctx, pos[0])
	if err != nil {
		return err
	}
	defer v.Close()
	res, err := mdtest.Run(ctx, v, pos[1], cfg, os.Stderr)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	return res.WriteText(os.Stdout)
}

// openVolume opens a formatted volume for mdtest: unlike the engine
// benchmark, mdtest works on a user's volume and never formats one.
func openVolume(ctx context.Context, metaURL string) (*bench.Volume, error) {
	return bench.OpenExisting(ctx, metaURL)
}
