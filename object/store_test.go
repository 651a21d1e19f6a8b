package object_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cairn/object"
	"cairn/object/objecttest"
)

func TestFile(t *testing.T) {
	objecttest.Run(t, func(t *testing.T) object.Store {
		s, err := object.Open("file", t.TempDir(), object.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// TestFileDeferSync runs the suite on a file store whose Put leaves the
// flush to Sync.
func TestFileDeferSync(t *testing.T) {
	objecttest.Run(t, func(t *testing.T) object.Store {
		s, err := object.Open("file", t.TempDir(), object.Options{DeferSync: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.(object.Syncer).Sync(context.Background()); err != nil {
			t.Fatalf("sync: %v", err)
		}
		return s
	})
}

func TestMem(t *testing.T) {
	objecttest.Run(t, func(t *testing.T) object.Store {
		s, err := object.Open("mem", t.Name(), object.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

func TestFileUnwritableBucket(t *testing.T) {
	// Root writes through permission bits; a file in the way of the
	// directory stops root too.
	parent := t.TempDir()
	blocker := filepath.Join(parent, "file")
	if err := os.WriteFile(blocker, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{filepath.Join(blocker, "bucket"), blocker} {
		s, err := object.Open("file", dir, object.Options{})
		if err != nil {
			t.Fatal(err)
		}
		err = s.Create(context.Background())
		if err == nil {
			t.Fatalf("Create on %s succeeded", dir)
		}
		msg := err.Error()
		if strings.Contains(msg, "\n") || !strings.Contains(msg, dir) {
			t.Errorf("error %q: want one line naming %s", msg, dir)
		}
	}
}

func TestFileLeavesNoTempFiles(t *testing.T) {
	dir := t.TempDir()
	s, _ := object.Open("file", dir, object.Options{})
	ctx := context.Background()
	if err := s.Create(ctx); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if err := s.Put(ctx, "x/y", []byte("data")); err != nil {
			t.Fatal(err)
		}
	}
	names, _ := filepath.Glob(filepath.Join(dir, "x", "*"))
	if len(names) != 1 {
		t.Errorf("files in x: %v, want only y", names)
	}
	// A temporary file left by a crash is not an object.
	if err := os.WriteFile(filepath.Join(dir, "x", ".cairn-tmp-123"), []byte("torn"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := s.List(ctx, "", "", 0)
	if err != nil || len(l) != 1 || l[0].Key != "x/y" {
		t.Errorf("List = %+v, %v; want only x/y", l, err)
	}
}

func TestBadKeys(t *testing.T) {
	s, _ := object.Open("file", t.TempDir(), object.Options{})
	for _, k := range []string{"", "/abs", "a/../b", "a//b", "./a", "a/.cairn-tmp-x"} {
		if err := s.Put(context.Background(), k, nil); err == nil {
			t.Errorf("Put(%q) succeeded, want an invalid-key error", k)
		}
	}
}

func TestUnknownStorage(t *testing.T) {
	_, err := object.Open("ftp", "x", object.Options{})
	if err == nil || !strings.Contains(err.Error(), "ftp") {
		t.Errorf("Open(ftp) = %v, want an error naming ftp", err)
	}
}

// TestFileBigObjects puts objects of the sizes blocks have, which go to
// and from the disk with O_DIRECT where the file system allows, and reads
// them whole and in part; an object replaced by a shorter one reads as
// the new one.
func TestFileBigObjects(t *testing.T) {
	ctx := context.Background()
	for _, deferSync := range []bool{false, true} {
		s, err := object.Open("file", t.TempDir(), object.Options{DeferSync: deferSync})
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{64 << 10, 128<<10 + 10, 4<<20 + 10, 1<<20 + 4096} {
			data := make([]byte, n)
			for i := range data {
				data[i] = byte(i*13 + n)
			}
			key := "chunks/0/0/" + strings.Repeat("x", n%7+1)
			if err := s.Put(ctx, key, data); err != nil {
				t.Fatal(err)
			}
			got, err := s.Get(ctx, key, 0, -1)
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("%d bytes (deferSync %v): got %d bytes, %v", n, deferSync, len(got), err)
			}
			part, err := s.Get(ctx, key, 10, 5000)
			if err != nil || !bytes.Equal(part, data[10:5010]) {
				t.Fatalf("%d bytes: part read %d bytes, %v", n, len(part), err)
			}
			short := data[:n-4096]
			if err := s.Put(ctx, key, short); err != nil {
				t.Fatal(err)
			}
			if got, err := s.Get(ctx, key, 0, -1); err != nil || !bytes.Equal(got, short) {
				t.Fatalf("%d bytes replaced by %d: got %d bytes, %v", n, len(short), len(got), err)
			}
		}
	}
}
