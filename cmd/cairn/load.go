package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"cairn/dump"

	"github.com/spf13/cobra"
)

func loadCommand() *cobra.Command {
	return &cobra.Command{
		Use:     "load META-URL [FILE|-]",
		Short:   "load a dump (any form 'cairn dump' writes) from FILE or stdin into an empty database",
		Example: "  cairn load sqlite3:///var/lib/cairn/copy.db vol.dump.zst\n  cairn dump redis://old/1 | cairn load redis://new/1",
		Args:    argsBetween(1, 2),
		RunE:    func(_ *cobra.Command, pos []string) error { return runLoad(pos) },
	}
}

func runLoad(pos []string) error {
	if len(pos) < 1 || len(pos) > 2 {
		return fmt.Errorf("expected META-URL and optionally FILE, got %d argument(s) (see 'cairn load -h')", len(pos))
	}
	metaURL, path := pos[0], "-"
	if len(pos) == 2 {
		path = pos[1]
	}
	if strings.HasPrefix(metaURL, "mem://") {
		return fmt.Errorf("mem:// keeps a volume inside one process only, so nothing could mount what load makes there; load into a database, e.g. sqlite3:///var/lib/cairn/vol.db")
	}
	var in io.Reader = os.Stdin
	name := "standard input"
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return fmt.Errorf("open the dump: %w", err)
		}
		defer f.Close()
		in, name = f, path
	}
	r, err := dump.NewReader(in, name)
	if err != nil {
		return err
	}
	defer r.Close()
	eng, dumper, err := openDumper(metaURL)
	if err != nil {
		return err
	}
	defer eng.Close()
	bar := startProgress("loaded", r.Progress)
	err = dumper.Restore(context.Background(), r)
	bar.finish()
	if err != nil {
		return volumeError(metaURL, err)
	}
	return nil
}
