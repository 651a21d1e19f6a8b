package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"cairn/dump"
	"cairn/internal/atomicfile"
	"cairn/meta"
	"cairn/meta/engines"

	"github.com/spf13/cobra"
)

func dumpCommand() *cobra.Command {
	c := &cobra.Command{
		Use:     "dump META-URL [FILE|-]",
		Short:   "write a volume's metadata to FILE (.gz, .zst: compressed) or stdout",
		Example: "  cairn dump sqlite3:///var/lib/cairn/vol.db vol.dump.zst\n  cairn dump redis://localhost:6379/1 --binary > vol.dump",
		Args:    argsBetween(1, 2),
	}
	binary := c.Flags().Bool("binary", false, "write the compact binary form instead of JSON lines")
	c.RunE = func(_ *cobra.Command, pos []string) error { return runDump(pos, *binary) }
	return c
}

func runDump(pos []string, binary bool) error {
	if len(pos) < 1 || len(pos) > 2 {
		return fmt.Errorf("expected META-URL and optionally FILE, got %d argument(s) (see 'cairn dump -h')", len(pos))
	}
	metaURL, path := pos[0], "-"
	if len(pos) == 2 {
		path = pos[1]
	}
	eng, dumper, err := openDumper(metaURL)
	if err != nil {
		return err
	}
	defer eng.Close()
	if _, err := eng.Load(context.Background()); err != nil {
		return volumeError(metaURL, err)
	}
	out, commit, abort, err := createOutput(path)
	if err != nil {
		return err
	}
	w, err := dump.NewWriter(out, dump.Options{Binary: binary, Compression: dump.CompressionFor(path)})
	if err != nil {
		abort()
		return err
	}
	bar := startProgress("dumped", w.Progress)
	err = dumper.Dump(context.Background(), w)
	if err == nil {
		err = w.Close()
	} else {
		w.Abort()
	}
	bar.finish()
	if err != nil {
		abort()
		return volumeError(metaURL, err)
	}
	return commit()
}

// openDumper opens the engine at metaURL and checks it can dump and load.
func openDumper(metaURL string) (meta.Engine, meta.Dumper, error) {
	eng, err := engines.Open(metaURL)
	if err != nil {
		return nil, nil, err
	}
	d, ok := meta.VolumeDumper(eng)
	if !ok {
		eng.Close()
		return nil, nil, fmt.Errorf("the %s engine cannot dump or load a volume", eng.Name())
	}
	return eng, d, nil
}

// volumeError says what went wrong with the volume at metaURL in words a
// user can act on.
func volumeError(metaURL string, err error) error {
	u := engines.Redact(metaURL)
	switch {
	case errors.Is(err, meta.ErrNotFormatted):
		return fmt.Errorf("no cairn volume at %s (nothing to dump; is the URL right?)", u)
	case errors.Is(err, meta.ErrDatabaseNotEmpty):
		return fmt.Errorf("%s is not empty: load needs an empty database (a new one, or one emptied by hand); nothing was changed", u)
	}
	return fmt.Errorf("%s: %w", u, err)
}

// createOutput opens path for writing ("-": stdout). A file is written
// under a temporary name and renamed by commit, so that a failed dump
// never leaves a truncated file under the name asked for.
func createOutput(path string) (w io.Writer, commit func() error, abort func(), err error) {
	if path == "-" {
		return os.Stdout, func() error { return nil }, func() {}, nil
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return nil, nil, nil, fmt.Errorf("create the dump file: %w", err)
	}
	abort = func() {
		tmp.Close()
		os.Remove(tmp.Name())
	}
	commit = func() error {
		if err := tmp.Sync(); err != nil {
			abort()
			return fmt.Errorf("write %s: %w", path, err)
		}
		if err := tmp.Close(); err != nil {
			os.Remove(tmp.Name())
			return fmt.Errorf("write %s: %w", path, err)
		}
		if err := os.Rename(tmp.Name(), path); err != nil {
			os.Remove(tmp.Name())
			return fmt.Errorf("write %s: %w", path, err)
		}
		// A streamed file cannot go through atomicfile.Write (which takes
		// the whole content); its directory sync makes the rename durable.
		return atomicfile.SyncDir(filepath.Dir(path))
	}
	return tmp, commit, abort, nil
}
