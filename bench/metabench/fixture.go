// Package metabench measures every metadata operation of the seed's engine
// comparison (mkdir … read_10) against one meta.Engine: latency per
// operation and round trips to the database per operation.
//
// The operations call meta.Engine directly. No client cache (attributes,
// entries, directory listings) sits in between, so a read measures the
// engine; whatever caching the database itself does is part of the engine.
// Inode numbers and slice ids are reserved in batches as a mounted client
// reserves them (bench.IDs), so their cost is spread over the operations as
// it is in use.
//
// The same table of operations (Ops) drives the Go benchmarks of this
// package (go test -bench, engine from CAIRN_BENCH_META) and
// 'cairn bench engines', so both measure the same code.
package metabench

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"cairn/bench"
	"cairn/meta"
)

// Caches says which caches are between the benchmark and the engine, for
// every report to print.
const Caches = "none: operations call meta.Engine directly (no attribute, entry or directory cache); only the database's own caching is measured"

// Fixture is what an operation's Prepare works with: the volume and a fresh,
// empty directory of its own.
type Fixture struct {
	Vol *bench.Volume
	Dir meta.Ino
	IDs *bench.IDs
}

func (f *Fixture) eng() meta.Engine { return f.Vol.Engine }

// mknod creates parent/name with a fresh inode number.
func (f *Fixture) mknod(ctx context.Context, parent meta.Ino, name string, typ meta.FileType, mode uint16, target string) (meta.Ino, error) {
	ino, err := f.IDs.Ino(ctx)
	if err != nil {
		return 0, err
	}
	if _, err := f.eng().Mknod(ctx, f.Vol.Cred, parent, name, ino, typ, mode, 0, target); err != nil {
		return 0, fmt.Errorf("create %q in directory %d: %w", name, parent, err)
	}
	return ino, nil
}

// file creates a regular file named name in the fixture's directory.
func (f *Fixture) file(ctx context.Context, name string) (meta.Ino, error) {
	return f.mknod(ctx, f.Dir, name, meta.TypeFile, 0644, "")
}

// dir creates a directory named name in parent.
func (f *Fixture) dir(ctx context.Context, parent meta.Ino, name string) (meta.Ino, error) {
	return f.mknod(ctx, parent, name, meta.TypeDirectory, 0755, "")
}

// files creates n regular files prefix0 … prefix(n-1) in parent.
func (f *Fixture) files(ctx context.Context, parent meta.Ino, prefix string, n int) error {
	for _, name := range names(prefix, n) {
		if _, err := f.mknod(ctx, parent, name, meta.TypeFile, 0644, ""); err != nil {
			return err
		}
	}
	return nil
}

// write appends a 4 KiB slice at block pos of chunk idx of ino.
func (f *Fixture) write(ctx context.Context, ino meta.Ino, idx uint32, pos int) error {
	id, err := f.IDs.Slice(ctx)
	if err != nil {
		return err
	}
	s := meta.Slice{Pos: uint32(pos) * 4096, ID: id, Size: 4096, Len: 4096}
	if _, _, err := f.eng().Write(ctx, ino, idx, s, time.Now().UnixNano()); err != nil {
		return fmt.Errorf("write slice %d to chunk %d of inode %d: %w", id, idx, ino, err)
	}
	return nil
}

// names makes prefix0 … prefix(n-1) ahead of the timed loop, so that the
// loop measures the engine and not string formatting.
func names(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = prefix + strconv.Itoa(i)
	}
	return out
}

// readAll lists a whole directory with attributes (readdirplus), as
// listing it through a mount does, and returns how many entries it has.
// One call returns the whole of a directory smaller than a page; a short
// page ends the listing.
func readAll(ctx context.Context, eng meta.Engine, dir meta.Ino) (int, error) {
	const page = 4096
	n, after := 0, ""
	for {
		ents, err := eng.Readdir(ctx, dir, after, page, true)
		if err != nil {
			return n, fmt.Errorf("list directory %d: %w", dir, err)
		}
		n += len(ents)
		if len(ents) < page {
			return n, nil
		}
		after = ents[len(ents)-1].Name
	}
}
