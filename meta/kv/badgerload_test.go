package kv

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/ristretto/v2/z"

	"cairn/meta"
)

// fileVolume is a DumpReader of a root directory holding n files of one
// slice each, its records in an order a SQL dump could give: every inode
// first, then the entries, then the chunks (so a sorted load must sort).
// After failAfter records (when set), Next fails.
type fileVolume struct {
	n, i      int
	failAfter int
	rec       meta.DumpRecord
}

func (v *fileVolume) Header() meta.DumpHeader {
	return meta.DumpHeader{Format: meta.Format{Name: "load", UUID: "u", Storage: "mem", BlockSize: 4 << 20, Compression: "none", Version: 1},
		NextInode: uint64(v.n) + 2, NextSlice: uint64(v.n) + 1}
}

func (v *fileVolume) Next() (*meta.DumpRecord, error) {
	i := v.i
	v.i++
	if v.failAfter > 0 && i >= v.failAfter {
		return nil, errors.New("record 42: corrupt")
	}
	n := v.n
	switch {
	case i == 0:
		v.rec = meta.DumpRecord{Kind: meta.DumpInode, Ino: meta.RootIno, Attr: meta.Attr{Type: meta.TypeDirectory, Mode: 0755, Nlink: 2, Length: 4096, Parent: meta.RootIno}}
	case i <= n:
		v.rec = meta.DumpRecord{Kind: meta.DumpInode, Ino: meta.Ino(i + 1), Attr: meta.Attr{Type: meta.TypeFile, Mode: 0644, Nlink: 1, Length: 100, Mtime: int64(i)}}
	case i <= 2*n:
		f := i - n
		v.rec = meta.DumpRecord{Kind: meta.DumpEntry, Ino: meta.RootIno, Name: fmt.Sprintf("f%d", f), Child: meta.Ino(f + 1), Type: meta.TypeFile}
	case i <= 3*n:
		f := i - 2*n
		v.rec = meta.DumpRecord{Kind: meta.DumpChunk, Ino: meta.Ino(f + 1), Slices: []meta.Slice{{ID: uint64(f), Size: 100, Len: 100}}}
	default:
		return nil, io.EOF
	}
	return &v.rec, nil
}

// A load into Badger through the StreamWriter, its records out of key
// order, gives the volume; a load whose dump fails midway, or whose
// writing fails midway, leaves the directory empty, and a load then
// succeeds there.
func TestBadgerSortedLoad(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e := openBadger(t, dir)
	s := e.store.(*BadgerStore)
	if err := e.Restore(ctx, &fileVolume{n: 3000, failAfter: 5000}); err == nil || !strings.Contains(err.Error(), "record 42") {
		t.Fatalf("load of a failing dump: %v", err)
	}
	if err := s.checkEmpty(); err != nil {
		t.Fatalf("after a failed read: %v", err)
	}
	// A family that fails once some of its tables are in the manifest.
	manifest := filepath.Join(dir, "MANIFEST")
	before := fileSize(manifest)
	value := make([]byte, 1000)
	failing := func(yield func(key, value []byte) error) error {
		for i := 0; fileSize(manifest) == before; i++ {
			if i == 1_000_000 {
				t.Fatal("no table reached the manifest")
			}
			rand.Read(value) // incompressible
			if err := yield(fmt.Appendf(nil, "A%08d", i), value); err != nil {
				return err
			}
		}
		return errors.New("the family failed")
	}
	if err := s.startLoad(); err != nil {
		t.Fatal(err)
	}
	if got := s.db.Opts(); got.BaseTableSize != loadTableBytes || got.MemTableSize != loadOptions(s.opts).MemTableSize {
		t.Fatalf("a load opens with tables of %d bytes and a memtable of %d", got.BaseTableSize, got.MemTableSize)
	}
	if err := s.loadSorted([]pairFamily{failing}); err == nil {
		t.Fatal("a failing family loaded")
	}
	if err := s.endLoad(); err != nil {
		t.Fatal(err)
	}
	if got := s.db.Opts(); got.BaseTableSize != s.opts.BaseTableSize || got.MemTableSize != s.opts.MemTableSize {
		t.Fatalf("after a load: tables of %d bytes and a memtable of %d, not a mount's", got.BaseTableSize, got.MemTableSize)
	}
	// Reopened: until a StreamWriter's Flush, this process does not see
	// what it wrote.
	e.Close()
	e = openBadger(t, dir)
	if err := e.store.(*BadgerStore).checkEmpty(); err != nil {
		t.Fatalf("after a failed write: %v", err)
	}
	if err := e.Restore(ctx, &fileVolume{n: 3000}); err != nil {
		t.Fatal(err)
	}
	if err := e.Restore(ctx, &fileVolume{n: 1}); !errors.Is(err, meta.ErrDatabaseNotEmpty) {
		t.Fatalf("second load: %v", err)
	}
	e.Close()
	e = openBadger(t, dir)
	if f, err := e.Load(ctx); err != nil || f.Name != "load" {
		t.Fatalf("reopened volume: %+v, %v", f, err)
	}
	names, after := 0, ""
	for {
		entries, err := e.Readdir(ctx, meta.RootIno, after, 1000, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) == 0 {
			break
		}
		names, after = names+len(entries), entries[len(entries)-1].Name
	}
	if names != 3000 {
		t.Fatalf("root lists %d names, want 3000", names)
	}
	ino, attr, err := e.Lookup(ctx, meta.RootIno, "f2999")
	if err != nil || ino != 3000 || attr.Mtime != 2999 {
		t.Fatalf("f2999: %d %+v %v", ino, attr, err)
	}
	slices, err := e.Read(ctx, ino, 0)
	if err != nil || len(slices) != 1 || slices[0].ID != 2999 {
		t.Fatalf("f2999's chunk: %+v %v", slices, err)
	}
}

// A load killed while the StreamWriter writes, or once it has flushed
// and before the settings are written, leaves a directory that does not
// open as a volume, and that a second load refuses as not empty.
func TestBadgerLoadKilled(t *testing.T) {
	for _, when := range []string{"midway", "flushed"} {
		t.Run(when, func(t *testing.T) { testBadgerLoadKilled(t, when) })
	}
}

func testBadgerLoadKilled(t *testing.T, when string) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestBadgerLoadKilledChild$", "-test.v")
	cmd.Env = append(os.Environ(), "CAIRN_BADGER_LOAD_CHILD="+dir, "CAIRN_BADGER_LOAD_KILL="+when)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the child was not killed: %v\n%s", err, out)
	}
	e := openBadger(t, dir)
	if err := e.store.(*BadgerStore).checkEmpty(); !errors.Is(err, meta.ErrDatabaseNotEmpty) {
		t.Fatalf("the killed load left nothing (%v): it was not killed midway", err)
	}
	ctx := context.Background()
	if f, err := e.Load(ctx); !errors.Is(err, meta.ErrNotFormatted) {
		t.Fatalf("a killed load opens as a volume: %+v, %v", f, err)
	}
	if err := e.Restore(ctx, &fileVolume{n: 1}); !errors.Is(err, meta.ErrDatabaseNotEmpty) {
		t.Fatalf("load after a killed load: %v", err)
	}
}

// killedLoad is a Badger store whose sorted load kills its process:
// midway, while it writes the second family, once the first one's tables
// are in Badger's manifest; or once it has flushed every family.
type killedLoad struct {
	*BadgerStore
	midway bool
}

func (k killedLoad) loadSorted(families []pairFamily) error {
	if !k.midway {
		err := k.BadgerStore.loadSorted(families)
		if err == nil {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {}
		}
		return err
	}
	manifest := filepath.Join(k.sortDir(), "MANIFEST")
	first := families[0]
	var before int64
	families[0] = func(yield func(key, value []byte) error) error {
		before = fileSize(manifest)
		return first(yield)
	}
	families[1] = func(yield func(key, value []byte) error) error {
		// A condition, not a time: the tables are built in the background.
		for range 3000 {
			if fileSize(manifest) > before {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
	return k.BadgerStore.loadSorted(families)
}

func fileSize(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}

// TestBadgerLoadKilledChild is the process TestBadgerLoadKilled kills.
func TestBadgerLoadKilledChild(t *testing.T) {
	dir := os.Getenv("CAIRN_BADGER_LOAD_CHILD")
	if dir == "" {
		t.Skip("run by TestBadgerLoadKilled")
	}
	s, err := OpenBadger(dir, BadgerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e := New(killedLoad{BadgerStore: s, midway: os.Getenv("CAIRN_BADGER_LOAD_KILL") == "midway"}, "")
	err = e.Restore(context.Background(), &fileVolume{n: 100000})
	t.Fatalf("the load returned (%v) instead of being killed", err)
}

// putStreamKV writes what Badger's StreamWriter decodes back to the same
// pair, for lengths on both sides of a varint byte.
func TestPutStreamKV(t *testing.T) {
	for _, tc := range []struct {
		keyLen, valueLen int
		stream           uint32
		done             bool
	}{
		{1, 0, 1, false},
		{10, 60, 3, false},
		{127, 128, 127, false},
		{128, 70000, 128, false},
		{0, 0, 300, true},
	} {
		key, value := bytes.Repeat([]byte{'k'}, tc.keyLen), bytes.Repeat([]byte{'v'}, tc.valueLen)
		buf := z.NewBuffer(1<<10, "test")
		putStreamKV(buf, key, value, tc.stream, tc.done)
		putStreamKV(buf, []byte("next"), nil, 1, false)
		list, err := badger.BufferToKVList(buf)
		buf.Release()
		if err != nil {
			t.Fatalf("%+v: %v", tc, err)
		}
		if len(list.Kv) != 2 {
			t.Fatalf("%+v: %d pairs decoded, want 2", tc, len(list.Kv))
		}
		kv := list.Kv[0]
		if !bytes.Equal(kv.Key, key) || !bytes.Equal(kv.Value, value) || kv.Version != 1 || kv.StreamId != tc.stream || kv.StreamDone != tc.done {
			t.Errorf("%+v: decoded key %d bytes, value %d bytes, version %d, stream %d, done %v", tc, len(kv.Key), len(kv.Value), kv.Version, kv.StreamId, kv.StreamDone)
		}
		if string(list.Kv[1].Key) != "next" {
			t.Errorf("%+v: the next pair decodes as %q", tc, list.Kv[1].Key)
		}
	}
}
