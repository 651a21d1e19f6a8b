package sql

import (
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"

	"cairn/meta"
)

// records is a DumpReader over records held in memory.
type records struct {
	header meta.DumpHeader
	list   []meta.DumpRecord
	next   int
}

func (r *records) Header() meta.DumpHeader { return r.header }

func (r *records) Next() (*meta.DumpRecord, error) {
	if r.next == len(r.list) {
		return nil, io.EOF
	}
	r.next++
	return &r.list[r.next-1], nil
}

// rootWithFiles is a volume of n empty files in the root; if duplicate
// is set, file duplicate/2 and the last file take the same name.
func rootWithFiles(n int, duplicate bool) *records {
	r := &records{header: meta.DumpHeader{
		Format:    meta.Format{Name: "dup", UUID: "u", Storage: "mem", BlockSize: 4 << 20, Compression: "none", Version: 1},
		NextInode: uint64(n) + 2, NextSlice: 1,
	}}
	r.list = append(r.list, meta.DumpRecord{Kind: meta.DumpInode, Ino: meta.RootIno,
		Attr: meta.Attr{Type: meta.TypeDirectory, Mode: 0o755, Nlink: 2, Length: 4096, Parent: meta.RootIno}})
	for i := range n {
		ino := meta.Ino(i + 2)
		name := "f" + strconv.Itoa(i)
		if duplicate && i == n-1 {
			name = "f" + strconv.Itoa(n/2)
		}
		r.list = append(r.list,
			meta.DumpRecord{Kind: meta.DumpInode, Ino: ino, Attr: meta.Attr{Type: meta.TypeFile, Mode: 0o644, Nlink: 1}},
			meta.DumpRecord{Kind: meta.DumpEntry, Ino: meta.RootIno, Name: name, Child: ino, Type: meta.TypeFile})
	}
	return r
}

// A load's bulk path (on SQLite and PostgreSQL a copier running beside
// the reader) still holds the tables' unique keys: two entries of one
// name in a directory are refused with one line, nothing mounts, and the
// database takes a good load afterwards.
func TestLoadRefusesDuplicateEntry(t *testing.T) {
	openPostgres, _ := postgresOpener(t)
	for _, tc := range []struct {
		name string
		open func(t *testing.T) meta.Engine
	}{
		{"sqlite", openSQLiteEngine},
		{"postgres", openPostgres},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := tc.open(t)
			d, _ := meta.Capability[meta.Dumper](e)
			const files = 5000
			err := d.Restore(t.Context(), rootWithFiles(files, true))
			if err == nil {
				t.Fatal("a dump naming two files alike in one directory loaded")

			}
			if !strings.Contains(err.Error(), "cairn_edge") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q, want one line naming the entries' table", err)
			}
			if _, err := e.Load(t.Context()); !errors.Is(err, meta.ErrNotFormatted) {
				t.Fatalf("Load after the refused dump: %v, want ErrNotFormatted", err)
			}
			if err := d.Restore(t.Context(), rootWithFiles(files, false)); err != nil {
				t.Fatalf("a good load after the refused one: %v", err)
			}
			if u, err := e.Usage(t.Context()); err != nil || u.Inodes != files+1 {
				t.Fatalf("usage after the load: %+v, %v; want %d inodes", u, err, files+1)
			}
		})
	}
}
