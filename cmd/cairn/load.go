package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"cairn/dump"
)

func loadCommand() command {
	return command{
		usage:   "load META-URL [FILE|-]",
		summary: "load a dump (any form 'cairn dump' writes) from FILE or stdin into an empty database",
		run:     runLoad,
	}
}

func runLoad(args []string) error {
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	pos, err := parseArgs(fs, args, -1)
	if err != nil {
		return err
	}
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
