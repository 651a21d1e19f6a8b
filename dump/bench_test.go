package dump

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"cairn/internal/testenv"
	"cairn/meta"
	"cairn/meta/engines"
)

// synthetic is a DumpReader of a volume of n files of one slice each, in
// directories of 1,000: a volume to load without building it file by file.
type synthetic struct {
	n, i uint64
	rec  meta.DumpRecord
	step int
}

func (s *synthetic) Header() meta.DumpHeader {
	return meta.DumpHeader{Format: meta.Format{Name: "bench", UUID: "u", Storage: "mem", BlockSize: 4 << 20, Compression: "none", Version: 1},
		NextInode: 2 + s.n + s.n/1000 + 1, NextSlice: s.n + 1}
}

func (s *synthetic) Next() (*meta.DumpRecord, error) {
	dirs := s.n/1000 + 1
	now := time.Now().UnixNano()
	if s.i == 0 && s.step == 0 {
		s.step = 1
		s.rec = meta.DumpRecord{Kind: meta.DumpInode, Ino: 1, Attr: meta.Attr{Type: meta.TypeDirectory, Mode: 0755, Nlink: 2 + uint32(dirs), Length: 4096, Parent: 1, Atime: now, Mtime: now, Ctime: now}}
		return &s.rec, nil
	}
	if s.i < dirs {
		dir := meta.Ino(2 + s.i)
		if s.step == 1 {
			s.step = 2
			s.rec = meta.DumpRecord{Kind: meta.DumpInode, Ino: dir, Attr: meta.Attr{Type: meta.TypeDirectory, Mode: 0755, Nlink: 2, Length: 4096, Parent: 1, Atime: now, Mtime: now, Ctime: now}}
			return &s.rec, nil
		}
		s.step = 1
		s.i++
		s.rec = meta.DumpRecord{Kind: meta.DumpEntry, Ino: 1, Name: "d" + strconv.FormatUint(uint64(dir), 10), Child: dir, Type: meta.TypeDirectory}
		return &s.rec, nil
	}
	f := s.i - dirs
	if f >= s.n {
		return nil, io.EOF
	}
	ino := meta.Ino(2 + dirs + f)
	switch s.step {
	case 1:
		s.step = 2
		s.rec = meta.DumpRecord{Kind: meta.DumpInode, Ino: ino, Attr: meta.Attr{Type: meta.TypeFile, Mode: 0644, Nlink: 1, Length: 100, Atime: now, Mtime: now, Ctime: now}}
	case 2:
		s.step = 3
		s.rec = meta.DumpRecord{Kind: meta.DumpEntry, Ino: meta.Ino(2 + f/1000), Name: "f" + strconv.FormatUint(f, 10), Child: ino, Type: meta.TypeFile}
	default:
		s.step = 1
		s.i++
		s.rec = meta.DumpRecord{Kind: meta.DumpChunk, Ino: ino, Slices: []meta.Slice{{ID: f + 1, Size: 100, Len: 100}}}
	}
	return &s.rec, nil
}

// BenchmarkDumpLoad loads a synthetic volume of $CAIRN_DUMP_INODES files
// (default 100,000) into each embedded engine, then dumps it in both
// forms and loads each dump into an empty database, reporting inodes per
// second. $CAIRN_DUMP_SERVERS (e.g. "redis,postgres,mysql,etcd") adds
// engines on servers started by testenv. It measures whole runs, so run it
// with -benchtime=1x.
func BenchmarkDumpLoad(b *testing.B) {
	n := uint64(100_000)
	if v, err := strconv.ParseUint(os.Getenv("CAIRN_DUMP_INODES"), 10, 64); err == nil {
		n = v
	}
	b.Run("sqlite3", func(b *testing.B) {
		dir := b.TempDir()
		benchEngine(b, n, func(name string) string { return "sqlite3://" + filepath.Join(dir, name+".db") })
	})
	b.Run("badger", func(b *testing.B) {
		dir := b.TempDir()
		benchEngine(b, n, func(name string) string { return "badger://" + filepath.Join(dir, name) })
	})
	servers := os.Getenv("CAIRN_DUMP_SERVERS")
	if strings.Contains(servers, "redis") {
		b.Run("redis", func(b *testing.B) {
			srv := testenv.Redis(b)
			dbs := map[string]int{"src": 0, "dstjson": 1, "dstbinary": 2}
			benchEngineOnServer(b, n, func(name string) string { return srv.URL(dbs[name]) }, redisCPU(b, srv))
		})
	}
	if strings.Contains(servers, "postgres") {
		b.Run("postgres", func(b *testing.B) {
			srv := testenv.Postgres(b)
			for _, db := range []string{"src", "dstjson", "dstbinary"} {
				srv.SQL(b, "postgres", "CREATE DATABASE "+db)
			}
			benchEngine(b, n, srv.URL)
		})
	}
	if strings.Contains(servers, "mysql") {
		b.Run("mariadb", func(b *testing.B) {
			srv := testenv.MariaDB(b)
			srv.SQL(b, "CREATE DATABASE src; CREATE DATABASE dstjson; CREATE DATABASE dstbinary")
			benchEngine(b, n, srv.URL)
		})
	}
	if strings.Contains(servers, "etcd") {
		b.Run("etcd", func(b *testing.B) {
			benchEngine(b, n, testenv.Etcd(b).URL)
		})
	}
}

// benchEngine builds the synthetic volume in url("src"), dumps it in
// both forms and loads each dump into url("dst" + form).
func benchEngine(b *testing.B, n uint64, url func(name string) string) {
	benchEngineOnServer(b, n, url, nil)
}

// benchEngineOnServer is benchEngine that also logs the CPU time each
// dump and load cost this process and, where serverCPU is set, the server.
func benchEngineOnServer(b *testing.B, n uint64, url func(name string) string, serverCPU func() time.Duration) {
	clock := cpuClock{server: serverCPU}
	ctx := context.Background()
	dir := b.TempDir()
	src := open(b, url("src"))
	defer src.Close()
	if err := dumper(b, src).Restore(ctx, &synthetic{n: n}); err != nil {
		b.Fatal(err)
	}
	inodes := float64(n + n/1000 + 2)
	for _, binary := range []bool{false, true} {
		form := map[bool]string{false: "json", true: "binary"}[binary]
		path := filepath.Join(dir, "dump-"+form)
		file, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		start, cpu := time.Now(), clock.now()
		w, _ := NewWriter(file, Options{Binary: binary})
		if err := dumper(b, src).Dump(ctx, w); err != nil {
			b.Fatal(err)
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
		if err := file.Close(); err != nil {
			b.Fatal(err)
		}
		dumpTime, dumpCPU := time.Since(start), clock.since(cpu)
		st, _ := os.Stat(path)
		dst := open(b, url("dst"+form))
		file, err = os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		start, cpu = time.Now(), clock.now()
		r, err := NewReader(file, path)
		if err != nil {
			b.Fatal(err)
		}
		if err := dumper(b, dst).Restore(ctx, r); err != nil {
			b.Fatal(err)
		}
		loadTime, loadCPU := time.Since(start), clock.since(cpu)
		r.Close()
		file.Close()
		dst.Close()
		b.ReportMetric(inodes/dumpTime.Seconds(), "dump-"+form+"-inodes/s")
		b.ReportMetric(inodes/loadTime.Seconds(), "load-"+form+"-inodes/s")
		b.Logf("%s: %d inodes, dump %v (%d bytes; %s), load %v (%s)", form, uint64(inodes), dumpTime.Round(time.Millisecond), st.Size(), dumpCPU, loadTime.Round(time.Millisecond), loadCPU)
	}
}

func open(b *testing.B, url string) meta.Engine {
	e, err := engines.Open(url)
	if err != nil {
		b.Fatal(fmt.Errorf("open %s: %w", url, err))
	}
	return e
}

func dumper(b *testing.B, e meta.Engine) meta.Dumper {
	d, ok := meta.Capability[meta.Dumper](e)
	if !ok {
		b.Fatalf("%s cannot dump", e.Name())
	}
	return d
}

// TestWriteSynthetic writes the benchmark's synthetic volume of
// $CAIRN_DUMP_INODES files as a dump to $CAIRN_DUMP_WRITE (binary if the
// name holds ".bin"), for measuring 'cairn load' and 'cairn dump' on
// their own, e.g. their peak memory under /usr/bin/time -v.
func TestWriteSynthetic(t *testing.T) {
	path := os.Getenv("CAIRN_DUMP_WRITE")
	if path == "" {
		t.Skip("set CAIRN_DUMP_WRITE to a file name to write a synthetic dump")
	}
	n, err := strconv.ParseUint(os.Getenv("CAIRN_DUMP_INODES"), 10, 64)
	if err != nil {
		n = 100_000
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, _ := NewWriter(f, Options{Binary: strings.Contains(path, ".bin"), Compression: CompressionFor(path)})
	src := &synthetic{n: n}
	if err := w.Header(src.Header()); err != nil {
		t.Fatal(err)
	}
	for {
		rec, err := src.Next()
		if err == io.EOF {
			break
		}
		if err := w.Record(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
