package redis

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"cairn/meta"
	"cairn/meta/metatest"
)

// TestDump runs the dump suite on one server, each engine on a database of
// its own (a dump and its load need two at once).
func TestDump(t *testing.T) {
	s := server(t)
	var next atomic.Int64
	metatest.RunDump(t, func(t *testing.T) meta.Engine { return fresh(t, s, int(next.Add(1)%16)) })
}

// recordList is a meta.DumpReader of fixed records.
type recordList struct {
	header  meta.DumpHeader
	records []meta.DumpRecord
	next    int
}

func (l *recordList) Header() meta.DumpHeader { return l.header }

func (l *recordList) Next() (*meta.DumpRecord, error) {
	if l.next == len(l.records) {
		return nil, io.EOF
	}
	l.next++
	return &l.records[l.next-1], nil
}

// recordSink is a meta.DumpWriter that keeps the records it is given.
type recordSink struct{ records []meta.DumpRecord }

func (s *recordSink) Header(meta.DumpHeader) error { return nil }

func (s *recordSink) Record(r *meta.DumpRecord) error {
	s.records = append(s.records, *r)
	return nil
}

// TestDumpManyBatches dumps a tree whose inodes fill several batches,
// with files named twice in every directory (two names read in one batch,
// the others in batches before or after it): every inode is written once.
func TestDumpManyBatches(t *testing.T) {
	e := fresh(t, server(t), 0)
	const (
		dirs   = 3
		files  = 1500 // per directory
		linked = 40   // files with two names in every directory
	)
	now := time.Now().UnixNano()
	src := &recordList{header: meta.DumpHeader{
		Format:    meta.Format{Name: "batches", UUID: "u", Storage: "mem", BlockSize: 4 << 20, Compression: "none", Version: meta.FormatVersion},
		NextInode: 2 + dirs + dirs*files, NextSlice: 1,
	}}
	add := func(r meta.DumpRecord) { src.records = append(src.records, r) }
	add(meta.DumpRecord{Kind: meta.DumpInode, Ino: meta.RootIno, Attr: meta.Attr{Type: meta.TypeDirectory, Mode: 0755, Nlink: 2 + dirs, Parent: meta.RootIno, Mtime: now}})
	dirIno := func(d int) meta.Ino { return meta.Ino(2 + d) }
	for d := range dirs {
		add(meta.DumpRecord{Kind: meta.DumpInode, Ino: dirIno(d), Attr: meta.Attr{Type: meta.TypeDirectory, Mode: 0755, Nlink: 2, Parent: meta.RootIno, Mtime: now}})
		add(meta.DumpRecord{Kind: meta.DumpEntry, Ino: meta.RootIno, Name: fmt.Sprint("d", d), Child: dirIno(d), Type: meta.TypeDirectory})
	}
	ino := dirIno(dirs)
	for d := range dirs {
		for f := range files {
			if d > 0 && f < linked {
				continue // named below, from every directory
			}
			nlink := uint32(1)
			if f < linked {
				nlink = 2 * dirs
			}
			add(meta.DumpRecord{Kind: meta.DumpInode, Ino: ino, Attr: meta.Attr{Type: meta.TypeFile, Mode: 0644, Nlink: nlink, Mtime: now}})
			if f < linked {
				// Spread over each directory's listing: first, middle, last.
				// Two names next to each other (read in one batch) in
				// each directory, first, in the middle or last.
				for e := range dirs {
					for _, letters := range []string{"amz", "bn{"} {
						name := fmt.Sprintf("%c-%03d", letters[(f+e)%3], f)
						add(meta.DumpRecord{Kind: meta.DumpEntry, Ino: dirIno(e), Name: name, Child: ino, Type: meta.TypeFile})
					}
				}
			} else {
				add(meta.DumpRecord{Kind: meta.DumpEntry, Ino: dirIno(d), Name: fmt.Sprintf("f-%04d", f), Child: ino, Type: meta.TypeFile})
			}
			ino++
		}
	}
	ctx := context.Background()
	if err := e.Restore(ctx, src); err != nil {
		t.Fatalf("Restore: %v", err)
	}
	var out recordSink
	if err := e.Dump(ctx, &out); err != nil {
		t.Fatalf("Dump: %v", err)
	}
	inodes, entries := map[meta.Ino]int{}, 0

	for _, r := range out.records {
		switch r.Kind {
		case meta.DumpInode:
			inodes[r.Ino]++
		case meta.DumpEntry:
			entries++
		}
	}
	wantInodes := 1 + dirs + dirs*files - (dirs-1)*linked
	if wantEntries := dirs + dirs*(files-linked) + 2*dirs*linked; len(inodes) != wantInodes || entries != wantEntries {
		t.Errorf("the dump holds %d inodes and %d entries, want %d and %d", len(inodes), entries, wantInodes, wantEntries)
	}
	for ino, n := range inodes {
		if n != 1 {
			t.Errorf("inode %d is written %d times", ino, n)
		}
	}

	// A writer that fails stops every walker: the dump returns that one
	// failure, once, and the volume's writers go on.
	failing := &failingSink{after: 500}
	err := e.Dump(ctx, failing)
	if !errors.Is(err, errSinkFull) || strings.Count(err.Error(), errSinkFull.Error()) != 1 {
		t.Errorf("Dump into a failing writer: %v, want its error once", err)
	}
	if failing.records > failing.after+dumpWalkers {
		t.Errorf("%d records offered after the writer failed at %d: the walkers did not stop", failing.records, failing.after)
	}
	quick, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	newIno, err := e.NextInodes(quick, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Mknod(quick, meta.RootCred, meta.RootIno, "after", newIno, meta.TypeDirectory, 0755, 0, ""); err != nil {
		t.Errorf("a change after the failed dump: %v (is the volume still paused?)", err)
	}
}

var errSinkFull = errors.New("disk full")

// failingSink fails every record from the after-th on, and counts them.
type failingSink struct{ after, records int }

func (s *failingSink) Header(meta.DumpHeader) error { return nil }

func (s *failingSink) Record(*meta.DumpRecord) error {
	s.records++
	if s.records > s.after {
		return errSinkFull
	}
	return nil
}
