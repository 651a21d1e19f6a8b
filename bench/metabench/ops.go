package metabench

import (
	"context"
	"fmt"

	"cairn/bench"
	"cairn/meta"
)

// Op is one measured operation. Prepare builds, untimed, what n runs need
// inside the fixture's fresh directory and returns the run; run(i) is the
// i-th timed operation, for i from 0 to n-1, called in that order.
type Op struct {
	Name  string
	Group string
	// Does says what one run asks of the engine.
	Does    string
	Prepare func(ctx context.Context, f *Fixture, n int) (run func(i int) error, err error)
}

// Groups are the operation groups, in report order; each gets a chart.
var Groups = []string{"directories", "files", "attributes", "xattrs", "data"}

// Ops returns the seed's operations in the seed's order.
func Ops() []Op {
	return []Op{
		{"mkdir", "directories", "Mknod of a directory (10,000 per parent at most)", prepMkdir},
		{"mvdir", "directories", "Rename of a directory within its parent", prepMvdir},
		{"rmdir", "directories", "Rmdir of an empty directory (10,000 per parent at most)", prepRmdir},
		{"readdir_10", "directories", "Readdir with attributes of a 10-entry directory", prepReaddir(10)},
		{"readdir_1k", "directories", "Readdir with attributes of a 1000-entry directory", prepReaddir(1000)},
		{"mknod", "files", "Mknod of a regular file", prepCreate},
		{"create", "files", "Mknod of a regular file (open state is the client's; the engine sees what mknod sees)", prepCreate},
		{"rename", "files", "Rename of a file within its directory", prepRename},
		{"unlink", "files", "Unlink, and ReleaseOrphan of the inode whose last link went (deleting a file nobody holds open)", prepUnlink},
		{"lookup", "attributes", "Lookup of an existing name", prepLookup},
		{"getattr", "attributes", "GetAttr", prepGetattr},
		{"setattr", "attributes", "SetAttr of the mode", prepSetattr},
		{"access", "attributes", "GetAttr and the permission check (meta.Access)", prepAccess},
		{"setxattr", "xattrs", "SetXattr of one attribute", prepSetxattr},
		{"getxattr", "xattrs", "GetXattr", prepGetxattr},
		{"removexattr", "xattrs", "RemoveXattr", prepRemovexattr},
		{"listxattr_1", "xattrs", "ListXattr of a file with 1 attribute", prepListxattr(1)},
		{"listxattr_10", "xattrs", "ListXattr of a file with 10 attributes", prepListxattr(10)},
		{"link", "files", "Link (a new source file every 1000 links)", prepLink},
		{"symlink", "files", "Mknod of a symlink", prepSymlink},
		{"newchunk", "data", "a new slice id (NextSlices in batches of 200, as a client)", prepNewchunk},
		{"write", "data", "Write of a 4 KiB slice record (100 records per chunk)", prepWrite},
		{"read_1", "data", "Read of a chunk's slice list of 1 record", prepRead(1)},
		{"read_10", "data", "Read of a chunk's slice list of 10 records", prepRead(10)},
	}
}

// dirsPerParent bounds the subdirectories one directory gets, far below
// any engine's link-count limit (a subdirectory adds a link to its parent).
const dirsPerParent = 10000

// parents makes the directories that n new subdirectories are spread over,
// dirsPerParent in each.
func (f *Fixture) parents(ctx context.Context, n int) ([]meta.Ino, error) {
	ps := make([]meta.Ino, 0, n/dirsPerParent+1)
	for i := 0; i < n; i += dirsPerParent {
		p, err := f.dir(ctx, f.Dir, fmt.Sprintf("p%d", i/dirsPerParent))
		if err != nil {
			return nil, err
		}
		ps = append(ps, p)
	}
	return ps, nil
}

func prepMkdir(ctx context.Context, f *Fixture, n int) (func(int) error, error) {
	ns := names("d", n)
	ps, err := f.parents(ctx, n)
	if err != nil {
		return nil, err
	}
	return func(i int) error {
		_, err := f.dir(ctx, ps[i/dirsPerParent], ns[i])
		return err
	}, nil
}

func prepMvdir(ctx context.Context, f *Fixture, n int) (func(int) error, error) {
	ns := names("d", n+1)
	if _, err := f.dir(ctx, f.Dir, ns[0]); err != nil {
		return nil, err
	}
	return func(i int) error {
		_, _, _, err := f.eng().Rename(ctx, f.Vol.Cred, f.Dir, ns[i], f.Dir, ns[i+1], 0, f.Vol.Session)
		return err
	}, nil
}

func prepRmdir(ctx context.Context, f *Fixture, n int) (func(int) error, error) {
	ns := names("d", n)
	ps, err := f.parents(ctx, n)
	if err != nil {
		return nil, err
	}
	for i, name := range ns {
		if _, err := f.dir(ctx, ps[i/dirsPerParent], name); err != nil {
			return nil, err
		}
	}
	return func(i int) error { return f.eng().Rmdir(ctx, f.Vol.Cred, ps[i/dirsPerParent], ns[i]) }, nil
}

func prepReaddir(size int) func(ctx context.Context, f *Fixture, n int) (func(int) error, error) {
	return func(ctx context.Context, f *Fixture, n int) (func(int) error, error) {
		if err := f.files(ctx, f.Dir, "f", size); err != nil {
			return nil, err
		}
		return func(int) error {
			got, err := readAll(ctx, f.eng(), f.Dir)
			if err == nil && got != size {
				err = fmt.Errorf("listed %d entries of directory %d, want %d", got, f.Dir, size)
			}
			return err
		}, nil
	}
}

func prepCreate(ctx context.Context, f *Fixture, n int) (func(int) error, error) {
	ns := names("f", n)
	return func(i int) error {
		_, err := f.file(ctx, ns[i])
		return err
	}, nil
}

func prepRename(ctx context.Context, f *Fixture, n int) (func(int) error, error) {
	ns := names("f", n+1)
	if _, err := f.file(ctx, ns[0]); err != nil {
		return nil, err
	}
	return func(i int) error {
		_, _, _, err := f.eng().Rename(ctx, f.Vol.Cred, f.Dir, ns[i], f.Dir, ns[i+1], 0, f.Vol.Session)
		return err
	}, nil
}

func prepUnlink(ctx context.Context, f *Fixture, n int) (func(int) error, error) {
	ns := names("f", n)
	if err := f.files(ctx, f.Dir, "f", n); err != nil {
		return nil, err
	}
	return func(i int) error { return bench.Unlink(ctx, f.Vol, f.Dir, ns[i]) }, nil
}

func prepLookup(ctx context.Context, f *Fixture, n int) (func(int) error, error) {
	if _, err := f.file(ctx, "f"); err != nil {
		return nil, err
	}
	return func(int) error {
		_, _, err := f.eng().Lookup(ctx, f.Dir, "f")
		return err
	}, nil
}

func prepGetattr(ctx context.Context, f *Fixture, n int) (func(int) error, error) {
	ino, err := f.file(ctx, "f")
	if err != nil {
		return nil, err
	}
	return func(int) error {
		_, err := f.eng().GetAttr(ctx, ino)
		return err
	}, nil
}

func prepSetattr(ctx context.Context, f *Fixture, n int) (func(int) error, error) {
	ino, err := f.file(ctx, "f")
	if err != nil {
		return nil, err
	}
	modes := [2]uint16{0600, 0644}
	return func(i int) error {
		_, err := f.eng().SetAttr(ctx, f.Vol.Cred, ino, meta.SetAttr{Mode: &modes[i%2]})
		return err
	}, nil
}

func prepAccess(ctx context.Context, f *Fixture, n int) (func(int) error, error) {
	ino, err := f.file(ctx, "f")
	if err != nil {
		return nil, err
	}
	return func(int) error {
		a, err := f.eng().GetAttr(ctx, ino)
		if err != nil {
			return err
		}
		return meta.Access(&a, f.Vol.Cred, meta.MayRead)
	}, nil
}

func prepSetxattr(ctx context.Context, f *Fixture, n int) (func(int) error, error) {
	ino, err := f.file(ctx, "f")
	if err != nil {
		return nil, err
	}
	values := [2][]byte{[]byte("value-a"), []byte("value-b")}
	return func(i int) error {
		return f.eng().SetXattr(ctx, f.Vol.Cred, ino, "user.bench", values[i%2], 0)
	}, nil
}

func prepGetxattr(ctx context.Context, f *Fixture, n int) (func(int) error, error) {
	ino, err := f.file(ctx, "f")
	if err != nil {
		return nil, err
	}
	if err := f.eng().SetXattr(ctx, f.Vol.Cred, ino, "user.bench", []byte("value"), 0); err != nil {
		return nil, err
	}
	return func(int) error {
		_, err := f.eng().GetXattr(ctx, ino, "user.bench")
		return err
	}, nil
}

func prepRemovexattr(ctx context.Context, f *Fixture, n int) (func(int) error, error) {
	// One file per 100 attributes keeps each file's attribute set small.
	const perFile = 100
	ns := names("user.x", n)
	inos := make([]meta.Ino, 0, n/perFile+1)
	for i := 0; i < n; i++ {
		if i%perFile == 0 {
			ino, err := f.file(ctx, fmt.Sprintf("f%d", i/perFile))
			if err != nil {
				return nil, err
			}
			inos = append(inos, ino)
		}
		if err := f.eng().SetXattr(ctx, f.Vol.Cred, inos[i/perFile], ns[i], []byte("value"), 0); err != nil {
			return nil, err
		}
	}
	return func(i int) error {
		return f.eng().RemoveXattr(ctx, f.Vol.Cred, inos[i/perFile], ns[i])
	}, nil
}

func prepListxattr(size int) func(ctx context.Context, f *Fixture, n int) (func(int) error, error) {
	return func(ctx context.Context, f *Fixture, n int) (func(int) error, error) {
		ino, err := f.file(ctx, "f")
		if err != nil {
			return nil, err
		}
		for _, name := range names("user.x", size) {
			if err := f.eng().SetXattr(ctx, f.Vol.Cred, ino, name, []byte("value"), 0); err != nil {
				return nil, err
			}
		}
		return func(int) error {
			got, err := f.eng().ListXattr(ctx, ino)
			if err == nil && len(got) != size {
				err = fmt.Errorf("listed %d attributes of inode %d, want %d", len(got), ino, size)
			}
			return err
		}, nil
	}
}

func prepLink(ctx context.Context, f *Fixture, n int) (func(int) error, error) {
	// A new source every 1000 links stays far below any engine's link limit.
	const perSource = 1000
	ns := names("l", n)
	var srcs []meta.Ino
	for i := 0; i < n; i += perSource {
		ino, err := f.file(ctx, fmt.Sprintf("f%d", i/perSource))
		if err != nil {
			return nil, err
		}
		srcs = append(srcs, ino)
	}
	return func(i int) error {
		_, err := f.eng().Link(ctx, f.Vol.Cred, srcs[i/perSource], f.Dir, ns[i])
		return err
	}, nil
}

func prepSymlink(ctx context.Context, f *Fixture, n int) (func(int) error, error) {
	ns := names("s", n)
	return func(i int) error {
		_, err := f.mknod(ctx, f.Dir, ns[i], meta.TypeSymlink, 0777, "../some/target/path")
		return err
	}, nil
}

func prepNewchunk(ctx context.Context, f *Fixture, n int) (func(int) error, error) {
	return func(int) error {
		_, err := f.IDs.Slice(ctx)
		return err
	}, nil
}

func prepWrite(ctx context.Context, f *Fixture, n int) (func(int) error, error) {
	// 100 records per chunk: a client compacts long slice lists, so a
	// list of thousands would measure what no mount ever does.
	const perChunk = 100
	ino, err := f.file(ctx, "f")
	if err != nil {
		return nil, err
	}
	return func(i int) error { return f.write(ctx, ino, uint32(i/perChunk), i%perChunk) }, nil
}

func prepRead(size int) func(ctx context.Context, f *Fixture, n int) (func(int) error, error) {
	return func(ctx context.Context, f *Fixture, n int) (func(int) error, error) {
		ino, err := f.file(ctx, "f")
		if err != nil {
			return nil, err
		}
		for i := 0; i < size; i++ {
			if err := f.write(ctx, ino, 0, i); err != nil {
				return nil, err
			}
		}
		return func(int) error {
			got, err := f.eng().Read(ctx, ino, 0)
			if err == nil && len(got) != size {
				err = fmt.Errorf("read %d slice records of inode %d, want %d", len(got), ino, size)
			}
			return err
		}, nil
	}
}
