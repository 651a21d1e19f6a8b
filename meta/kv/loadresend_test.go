package kv

import (
	"context"
	"fmt"
	"io"
	"sync"
	"testing"

	"cairn/internal/testenv"
	"cairn/meta"
)

// lostReplies is a Store that carries out every writing transaction on
// the real store but reports the first commit of each write set as timed
// out, as a commit whose reply never came: the fault a loaded machine
// causes.
type lostReplies struct {
	Store
	mu   sync.Mutex
	seen map[string]bool // first key written, of the write sets committed
	lost int
}

func (s *lostReplies) Txn(ctx context.Context, fn func(tx Tx) error) error {
	var first []byte
	err := s.Store.Txn(ctx, func(tx Tx) error {
		return fn(&writeSpy{Tx: tx, first: &first})
	})
	if err != nil || first == nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen[string(first)] {
		return nil
	}
	s.seen[string(first)] = true
	s.lost++
	return fmt.Errorf("etcd: commit timed out, reply lost: %w", meta.ErrUnavailable)
}

// The load sizes its transactions and keeps them in flight as on etcd.
func (s *lostReplies) maxWrites() int       { return etcdMaxTxnOps }
func (s *lostReplies) parallelCommits() int { return 8 }

// writeSpy notes the first key a transaction writes.
type writeSpy struct {
	Tx
	first *[]byte
}

func (w *writeSpy) Put(key, value []byte) { w.note(key); w.Tx.Put(key, value) }
func (w *writeSpy) Delete(key []byte)     { w.note(key); w.Tx.Delete(key) }

func (w *writeSpy) note(key []byte) {
	if *w.first == nil {
		*w.first = key
	}
}

// files is a DumpReader of a root holding n empty files.
type files struct {
	n, i int
	rec  meta.DumpRecord
}

func (f *files) Header() meta.DumpHeader {
	return meta.DumpHeader{Format: meta.Format{Name: "resend", Storage: "mem", BlockSize: 4 << 20, Version: meta.FormatVersion},
		NextInode: uint64(2 + f.n), NextSlice: 1}
}

func (f *files) Next() (*meta.DumpRecord, error) {
	defer func() { f.i++ }()
	switch {
	case f.i == 0:
		f.rec = meta.DumpRecord{Kind: meta.DumpInode, Ino: meta.RootIno, Attr: meta.Attr{Type: meta.TypeDirectory, Mode: 0o755, Nlink: 2, Length: 4096, Parent: meta.RootIno}}
	case f.i > 2*f.n:
		return nil, io.EOF
	case f.i%2 == 1:
		f.rec = meta.DumpRecord{Kind: meta.DumpInode, Ino: meta.Ino(2 + f.i/2), Attr: meta.Attr{Type: meta.TypeFile, Mode: 0o644, Nlink: 1}}
	default:
		ino := meta.Ino(2 + (f.i-1)/2)
		f.rec = meta.DumpRecord{Kind: meta.DumpEntry, Ino: meta.RootIno, Name: fmt.Sprint("f", ino), Child: ino, Type: meta.TypeFile}
	}
	return &f.rec, nil
}

// A load whose commits time out after etcd carried them out sends them
// again (blind puts may be applied twice) and ends with the whole volume.
func TestEtcdLoadResendsLostCommits(t *testing.T) {
	c := testenv.Etcd(t)
	store, err := OpenEtcdURL(c.URL("resend"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	lossy := &lostReplies{Store: store.store, seen: map[string]bool{}}
	const n = 1000 // 2,000 records: about 16 transactions
	if err := New(lossy, "resend").Restore(t.Context(), &files{n: n}); err != nil {
		t.Fatalf("load with lost commit replies: %v", err)
	}
	if lossy.lost < 10 {
		t.Fatalf("%d commit replies lost: the test proves little", lossy.lost)
	}
	if _, err := store.Load(t.Context()); err != nil {
		t.Fatalf("the loaded volume: %v", err)
	}
	names, err := store.Readdir(t.Context(), meta.RootIno, "", 0, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != n {
		t.Errorf("the loaded root lists %d names, want %d", len(names), n)
	}
	if u, err := store.Usage(t.Context()); err != nil || u.Inodes != n+1 {
		t.Errorf("usage of the loaded volume = %+v, %v; want %d inodes", u, err, n+1)
	}
}
