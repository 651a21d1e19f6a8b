package kv

import (
	"bytes"
	"slices"
	"testing"

	"cairn/meta"
)

// TestScanInodesWindows checks that scanning inode keys window by window
// finds every one, in key order, on both sides of the window boundaries
// and past the inode counter, and nothing of the neighbouring tags.
func TestScanInodesWindows(t *testing.T) {
	for _, tc := range []struct {
		name   string
		prefix string
		next   meta.Ino
		inodes []meta.Ino
	}{
		{"one window", "", 100, []meta.Ino{1, 2, 99}},
		{"boundaries", "vol", 3001, []meta.Ino{1, inodeWindow - 1, inodeWindow, inodeWindow + 1, 2*inodeWindow - 1, 3000}},
		{"past the counter", "vol", 2 * inodeWindow, []meta.Ino{1, 2*inodeWindow + 5, 1 << 40}},
		{"empty windows", "", 10 * inodeWindow, []meta.Ino{1, 9*inodeWindow + 3}},
		{"nothing", "", 1, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := keys{prefix: []byte(tc.prefix)}
			s := NewMemStore()
			var want [][]byte
			err := s.Txn(t.Context(), func(tx Tx) error {
				tx.Put(k.format(), []byte("{}"))
				tx.Put(k.key(tagInode+1, []byte("after")), []byte("x"))
				for _, ino := range tc.inodes {
					for _, key := range [][]byte{k.attr(ino), k.entry(ino, "name"), k.chunk(ino, 7)} {
						tx.Put(key, []byte("v"))
						want = append(want, key)
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			slices.SortFunc(want, bytes.Compare)
			var got [][]byte
			err = s.Snapshot(t.Context(), func(tx Tx) error {
				return k.scanInodes(tx, tc.next, func(kv KeyValue) error {
					got = append(got, append([]byte{}, kv.Key...))
					return nil
				})
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("scanned %d keys, want %d: %q", len(got), len(want), got)
			}
			for i := range want {
				if !bytes.Equal(got[i], want[i]) {
					t.Errorf("key %d = %q, want %q", i, got[i], want[i])
				}
			}
		})
	}
}
