// Package objecttest is the conformance suite every object.Store must pass:
// the same calls, the same results, for the local directory, memory and S3.
package objecttest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"sync"
	"testing"

	"cairn/object"
)

// Run runs the suite; newStore returns a fresh, empty store for each subtest
// (Run calls Create on it).
func Run(t *testing.T, newStore func(t *testing.T) object.Store) {
	tests := []struct {
		name string
		f    func(t *testing.T, s object.Store)
	}{
		{"PutGet", testPutGet},
		{"Ranges", testRanges},
		{"GetInto", testGetInto},
		{"Head", testHead},
		{"Missing", testMissing},
		{"Overwrite", testOverwrite},
		{"Delete", testDelete},
		{"ListOrderAndPaging", testList},
		{"ListPrefix", testListPrefix},
		{"ConcurrentPuts", testConcurrentPuts},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t)
			if err := s.Create(context.Background()); err != nil {
				t.Fatalf("Create %s: %v", s, err)
			}
			tc.f(t, s)
		})
	}
}

func randomBytes(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 7))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func mustPut(t *testing.T, s object.Store, key string, data []byte) {
	t.Helper()
	if err := s.Put(context.Background(), key, data); err != nil {
		t.Fatalf("Put %q: %v", key, err)
	}
}

func mustGet(t *testing.T, s object.Store, key string, off, limit int64) []byte {
	t.Helper()
	b, err := s.Get(context.Background(), key, off, limit)
	if err != nil {
		t.Fatalf("Get %q [%d,+%d): %v", key, off, limit, err)
	}
	return b
}

func testPutGet(t *testing.T, s object.Store) {
	for i, n := range []int{0, 1, 4096, 1<<20 + 13} {
		key := fmt.Sprintf("chunks/0/%d/obj_%d", i, n)
		data := randomBytes(uint64(n), n)
		mustPut(t, s, key, data)
		if got := mustGet(t, s, key, 0, -1); !bytes.Equal(got, data) {
			t.Errorf("Get %q: %d bytes back, want %d equal bytes", key, len(got), len(data))
		}
	}
}

// testGetInto reads whole objects into buffers too small, just big enough
// and bigger; a store that implements object.GetterInto must use the
// buffer whenever the object fits.
func testGetInto(t *testing.T, s object.Store) {
	ctx := context.Background()
	_, into := s.(object.GetterInto)
	for i, n := range []int{0, 1, 4097} {
		key := fmt.Sprintf("chunks/0/%d/into_%d", i, n)
		data := randomBytes(uint64(n)+3, n)
		mustPut(t, s, key, data)
		for _, room := range []int{n - 1, n, n + 100} {
			if room < 0 {
				continue
			}
			buf := make([]byte, 0, room)
			got, err := object.GetInto(ctx, s, key, buf)
			if err != nil {
				t.Fatalf("GetInto %q with room for %d: %v", key, room, err)
			}
			if !bytes.Equal(got, data) {
				t.Errorf("GetInto %q with room for %d: %d bytes back, want %d equal bytes", key, room, len(got), n)
			}
			if into && n > 0 && n <= room && &got[0] != &buf[:1][0] {
				t.Errorf("GetInto %q: a %d-byte object did not go into a buffer of %d", key, n, room)
			}
		}
	}
	if _, err := object.GetInto(ctx, s, "chunks/0/9/none", make([]byte, 0, 16)); !errors.Is(err, object.ErrNotExist) {
		t.Errorf("GetInto of a missing key: %v, want ErrNotExist", err)
	}
}

func testRanges(t *testing.T, s object.Store) {
	data := randomBytes(1, 10000)
	mustPut(t, s, "r", data)
	for _, c := range []struct{ off, limit int64 }{
		{0, 1}, {0, 10000}, {0, 20000}, {1, -1}, {9999, -1}, {9999, 5},
		{5000, 0}, {10000, -1}, {10000, 10}, {123, 4567},
	} {
		got := mustGet(t, s, "r", c.off, c.limit)
		lo, hi := c.off, int64(len(data))
		if c.limit >= 0 && lo+c.limit < hi {
			hi = lo + c.limit
		}
		if lo > hi {
			lo = hi
		}
		if !bytes.Equal(got, data[lo:hi]) {
			t.Errorf("Get(off=%d, limit=%d): %d bytes, want %d equal to data[%d:%d]", c.off, c.limit, len(got), hi-lo, lo, hi)
		}
	}
}

func testHead(t *testing.T, s object.Store) {
	mustPut(t, s, "dir/h", make([]byte, 777))
	info, err := s.Head(context.Background(), "dir/h")
	if err != nil {
		t.Fatalf("Head: %v", err)
	}
	if info.Key != "dir/h" || info.Size != 777 || info.ModTime.IsZero() {
		t.Errorf("Head = %+v, want key dir/h, size 777 and a modification time", info)
	}
}

func testMissing(t *testing.T, s object.Store) {
	ctx := context.Background()
	mustPut(t, s, "present/x", []byte("x"))
	for _, key := range []string{"absent", "present/y", "present"} {
		if _, err := s.Get(ctx, key, 0, -1); !errors.Is(err, object.ErrNotExist) {
			t.Errorf("Get missing %q: err %v, want ErrNotExist", key, err)
		}
		if _, err := s.Head(ctx, key); !errors.Is(err, object.ErrNotExist) {
			t.Errorf("Head missing %q: err %v, want ErrNotExist", key, err)
		}
		if err := s.Delete(ctx, key); err != nil {
			t.Errorf("Delete missing %q: %v, want nil", key, err)
		}
	}
}

func testOverwrite(t *testing.T, s object.Store) {
	mustPut(t, s, "o", randomBytes(1, 5000))
	second := randomBytes(2, 100)
	mustPut(t, s, "o", second)
	if got := mustGet(t, s, "o", 0, -1); !bytes.Equal(got, second) {
		t.Errorf("after overwrite Get returned %d bytes, want the 100 new ones", len(got))
	}
}

func testDelete(t *testing.T, s object.Store) {
	ctx := context.Background()
	mustPut(t, s, "d/1", []byte("one"))
	mustPut(t, s, "d/2", []byte("two"))
	if err := s.Delete(ctx, "d/1"); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if _, err := s.Get(ctx, "d/1", 0, -1); !errors.Is(err, object.ErrNotExist) {
		t.Errorf("Get after Delete: err %v, want ErrNotExist", err)
	}
	if got := mustGet(t, s, "d/2", 0, -1); string(got) != "two" {
		t.Errorf("Delete removed a neighbour: d/2 = %q", got)
	}
	l, err := s.List(ctx, "d/", "", 0)
	if err != nil || len(l) != 1 || l[0].Key != "d/2" {
		t.Errorf("List after Delete = %v, %v; want only d/2", keys(l), err)
	}
}

func keys(l []object.Info) []string {
	out := make([]string, len(l))
	for i, in := range l {
		out[i] = in.Key
	}
	return out
}

// listKeys are chosen so that a directory walk in name order would differ
// from key order: "a.b" sorts before "a/b", "a0" after it.
var listKeys = []string{
	"a", "a.b", "a/b", "a/b/c", "a/b.c", "a0", "a/c", "b/a", "b/b/b/b",
	"chunks/0/0/1_0_4", "chunks/0/0/10_0_4", "chunks/0/0/2_0_4", "z",
}

func testList(t *testing.T, s object.Store) {
	ctx := context.Background()
	for i, k := range listKeys {
		if k == "a" || k == "a/b" {
			continue // a key cannot also be a directory of keys in a file store
		}
		mustPut(t, s, k, make([]byte, i))
	}
	var want []string
	for _, k := range listKeys {
		if k != "a" && k != "a/b" {
			want = append(want, k)
		}
	}
	sort.Strings(want)
	for _, page := range []int{1, 3, 100} {
		var got []string
		after := ""
		for {
			l, err := s.List(ctx, "", after, page)
			if err != nil {
				t.Fatalf("List(after=%q, limit=%d): %v", after, page, err)
			}
			if len(l) > page {
				t.Fatalf("List(limit=%d) returned %d", page, len(l))
			}
			if len(l) == 0 {
				break
			}
			for _, in := range l {
				got = append(got, in.Key)
			}
			after = l[len(l)-1].Key
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("List pages of %d:\n got %v\nwant %v", page, got, want)
		}
	}
	l, err := s.List(ctx, "", "a/b.c", 2)
	if err != nil || fmt.Sprint(keys(l)) != "[a/b/c a/c]" {
		t.Errorf("List(after a/b.c, 2) = %v, %v; want [a/b/c a/c]", keys(l), err)
	}
	l, _ = s.List(ctx, "b/", "", 10)
	if len(l) != 2 || l[1].Size != int64(indexOf("b/b/b/b")) {
		t.Errorf("List(b/) = %+v, want b/a and b/b/b/b with its size", l)
	}
}

func indexOf(k string) int {
	for i, x := range listKeys {
		if x == k {
			return i
		}
	}
	return -1
}

func testListPrefix(t *testing.T, s object.Store) {
	ctx := context.Background()
	for _, k := range []string{"p/1", "p/2", "pq/1", "p1", "q"} {
		mustPut(t, s, k, []byte(k))
	}
	for _, c := range []struct{ prefix, want string }{
		{"p", "[p/1 p/2 p1 pq/1]"},
		{"p/", "[p/1 p/2]"},
		{"pq", "[pq/1]"},
		{"x", "[]"},
		{"p/2", "[p/2]"},
	} {
		l, err := s.List(ctx, c.prefix, "", 0)
		if err != nil || fmt.Sprint(keys(l)) != c.want {
			t.Errorf("List(%q) = %v, %v; want %s", c.prefix, keys(l), err, c.want)
		}
	}
}

func testConcurrentPuts(t *testing.T, s object.Store) {
	const writers, rounds = 8, 10
	var wg sync.WaitGroup
	errs := make(chan error, writers*rounds*2)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < rounds; r++ {
				ctx := context.Background()
				if err := s.Put(ctx, fmt.Sprintf("c/%d/%d", w, r), randomBytes(uint64(w*100+r), 1000)); err != nil {
					errs <- err
				}
				if err := s.Put(ctx, "c/shared", bytes.Repeat([]byte{byte(w)}, 64<<10)); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent Put: %v", err)
	}
	for w := 0; w < writers; w++ {
		for r := 0; r < rounds; r++ {
			key := fmt.Sprintf("c/%d/%d", w, r)
			if got := mustGet(t, s, key, 0, -1); !bytes.Equal(got, randomBytes(uint64(w*100+r), 1000)) {
				t.Errorf("%s holds the wrong bytes", key)
			}
		}
	}
	shared := mustGet(t, s, "c/shared", 0, -1)
	if len(shared) != 64<<10 || !bytes.Equal(shared, bytes.Repeat(shared[:1], len(shared))) {
		t.Errorf("c/shared is torn: %d bytes, not all equal to the first", len(shared))
	}
	l, err := s.List(context.Background(), "c/", "", 1000)
	if err != nil || len(l) != writers*rounds+1 {
		t.Errorf("List(c/) found %d objects (%v), want %d", len(l), err, writers*rounds+1)
	}
}
