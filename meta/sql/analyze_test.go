package sql

import (
	"io"
	"testing"
	"time"

	"cairn/meta"
)

// rootOnly is a DumpReader of a volume holding its root directory alone.
type rootOnly struct{ given bool }

func (r *rootOnly) Header() meta.DumpHeader {
	return meta.DumpHeader{Format: meta.Format{Name: "analyze", UUID: "7b0e7a38-5a57-4c2a-9f3e-2f4c1d9e6a10", Storage: "mem", BlockSize: 4 << 20, Compression: "none", Version: meta.FormatVersion},
		NextInode: 2, NextSlice: 1}
}

func (r *rootOnly) Next() (*meta.DumpRecord, error) {
	if r.given {
		return nil, io.EOF
	}
	r.given = true
	now := time.Now().UnixNano()
	return &meta.DumpRecord{Kind: meta.DumpInode, Ino: meta.RootIno, Attr: meta.Attr{Type: meta.TypeDirectory, Mode: 0755, Nlink: 2, Length: 4096, Parent: meta.RootIno, Atime: now, Mtime: now, Ctime: now}}, nil
}

// TestPostgresLoadAnalyzes: a load into PostgreSQL leaves the planner
// statistics of the tables it filled, so that the first operations on a
// large loaded volume (an online migration's writes) do not read whole
// tables while autovacuum has not got to them.
func TestPostgresLoadAnalyzes(t *testing.T) {
	e := startPostgres(t).engine(t)
	if err := e.Restore(t.Context(), &rootOnly{}); err != nil {
		t.Fatal(err)
	}
	var columns int
	err := e.db.QueryRowContext(t.Context(), "SELECT count(*) FROM pg_stats WHERE schemaname = current_schema() AND tablename = 'cairn_node'").Scan(&columns)
	if err != nil {
		t.Fatal(err)
	}
	if columns == 0 {
		t.Error("no planner statistics of cairn_node after a load")
	}
}
