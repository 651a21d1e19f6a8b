package main

import (
	"context"
	"encoding/json"
	"os"

	"cairn/bench"
	"cairn/bench/mdtest"

	"github.com/spf13/cobra"
)

func mdtestCommand() *cobra.Command {
	c := &cobra.Command{
		Use:     "mdtest META-URL PATH",
		Short:   "mdtest's metadata rates on a tree built in PATH of a volume, through the library (no FUSE)",
		Example: "  cairn mdtest sqlite3:///tmp/bench.db /mdtest --threads 4 --dirs 3 --depth 2 --files 50",
		Args:    exactArgs(2),
	}
	fs := c.Flags()
	var cfg mdtest.Config
	fs.IntVar(&cfg.Dirs, "dirs", 3, "subdirectories per tree directory (mdtest -b)")
	fs.IntVar(&cfg.Depth, "depth", 1, "levels of the tree below its root (mdtest -z)")
	fs.IntVar(&cfg.Items, "files", 100, "directories, then files, made in every tree directory (mdtest -I)")
	fs.IntVarP(&cfg.Threads, "threads", "p", 1, "threads, each with a tree of its own (mdtest tasks with -u)")
	fs.IntVar(&cfg.Iterations, "iterations", 1, "times to repeat the whole test (mdtest -i)")
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	c.RunE = func(_ *cobra.Command, pos []string) error {
		ctx := context.Background()
		v, err := openVolume(ctx, pos[0])
		if err != nil {
			return err
		}
		defer v.Close()
		progress, done := benchProgress()
		res, err := mdtest.Run(ctx, v, pos[1], cfg, progress)
		done()
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
	return c
}

// openVolume opens a formatted volume for mdtest: unlike the engine
// benchmark, mdtest works on a user's volume and never formats one.
func openVolume(ctx context.Context, metaURL string) (*bench.Volume, error) {
	return bench.OpenExisting(ctx, metaURL)
}
