package volume_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"cairn/meta"
	"cairn/object"
	"cairn/volume"
)

var ctx = context.Background()

// testFormat is a small volume whose blocks go to a directory of the test.
func testFormat(t *testing.T) meta.Format {
	return meta.Format{Name: "vol", UUID: "uuid-1", Storage: "file", Bucket: filepath.Join(t.TempDir(), "blocks"),
		BlockSize: 64 << 10, Compression: "lz4", Version: meta.FormatVersion}
}

// format creates the volume f on a fresh SQLite database and returns its
// URL.
func format(t *testing.T, f meta.Format) string {
	t.Helper()
	url := "sqlite3://" + filepath.Join(t.TempDir(), "meta.db")
	v, err := volume.OpenMeta(ctx, url, volume.Options{Create: &f})
	if err != nil {
		t.Fatalf("format %s: %v", url, err)
	}
	if !v.Formatted {
		t.Errorf("OpenMeta with Create on an empty database did not say it formatted")
	}
	if err := v.Close(ctx); err != nil {
		t.Fatal(err)
	}
	return url
}

func writeFile(t *testing.T, v *volume.Volume, name string, data []byte, sync bool) {
	t.Helper()
	fh, _, err := v.VFS.Create(ctx, meta.RootCred, meta.RootIno, name, 0o644, syscall.O_RDWR)
	if err != nil {
		t.Fatalf("create %s: %v", name, err)
	}
	if n, err := v.VFS.Write(ctx, fh, data, 0); err != nil || n != len(data) {
		t.Fatalf("write %s: %d, %v", name, n, err)
	}
	if sync {
		if err := v.VFS.Fsync(ctx, fh); err != nil {
			t.Fatalf("fsync %s: %v", name, err)
		}
	}
}

func readFile(t *testing.T, v *volume.Volume, name string) []byte {
	t.Helper()
	e, err := v.VFS.Lookup(ctx, meta.RootCred, meta.RootIno, name)
	if err != nil {
		t.Fatalf("look up %s: %v", name, err)
	}
	fh, _, err := v.VFS.Open(ctx, meta.RootCred, e.Ino, syscall.O_RDONLY)
	if err != nil {
		t.Fatalf("open %s: %v", name, err)
	}
	defer v.VFS.Release(ctx, fh, 0)
	buf := make([]byte, e.Attr.Length+1)
	n, err := v.VFS.Read(ctx, fh, buf, 0)
	if err != nil {
		t.Fatalf("read %s: %v", name, err)
	}
	return buf[:n]
}

func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i/251)
	}
	return b
}

// TestOpenWritesBackOnClose: what is written through an opened volume and
// never flushed is in the volume after Close, as a second opening reads
// it; so Close writes back before it lets the engine and stores go.
func TestOpenWritesBackOnClose(t *testing.T) {
	f := testFormat(t)
	url := format(t, f)
	cache := t.TempDir()
	v, err := volume.Open(ctx, url, volume.Options{CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	if v.Formatted || v.Format.UUID != f.UUID || v.Format.BlockSize != f.BlockSize {
		t.Errorf("opened volume has settings %+v (formatted now: %v), want %+v", v.Format, v.Formatted, f)
	}
	data := pattern(200 << 10) // several blocks
	writeFile(t, v, "f", data, false)
	if err := v.Close(ctx); err != nil {
		t.Fatalf("close: %v", err)
	}

	v, err = volume.Open(ctx, url, volume.Options{CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close(ctx)
	if got := readFile(t, v, "f"); !bytes.Equal(got, data) {
		t.Errorf("reopened volume reads %d bytes, not the %d written before Close", len(got), len(data))
	}
}

// TestOpenNoVolume: a database without a volume is one line that says to
// format it, from every way of opening.
func TestOpenNoVolume(t *testing.T) {
	url := "sqlite3://" + filepath.Join(t.TempDir(), "empty.db")
	want := "no cairn volume at " + url + " (run 'cairn format " + url + " NAME' first)"
	if _, err := volume.OpenMeta(ctx, url, volume.Options{}); err == nil || err.Error() != want {
		t.Errorf("OpenMeta = %v, want %q", err, want)
	}
	if _, err := volume.Open(ctx, url, volume.Options{}); err == nil || err.Error() != want {
		t.Errorf("Open = %v, want %q", err, want)
	}
	if _, err := volume.OpenMeta(ctx, "nosuch://x", volume.Options{}); err == nil || !strings.Contains(err.Error(), "unknown metadata engine") {
		t.Errorf("OpenMeta of an unknown scheme = %v", err)
	}
}

// TestOpenFailureClosesEngine: when the object store cannot be opened (S3
// without credentials), the engine opened before is closed again: Badger,
// which locks its directory, opens again in the same process.
func TestOpenFailureClosesEngine(t *testing.T) {
	t.Setenv(object.AccessKeyEnv, "")
	t.Setenv(object.SecretKeyEnv, "")
	f := testFormat(t)
	f.Storage, f.Bucket = "s3", "http://127.0.0.1:1/vol"
	url := "badger://" + t.TempDir()
	v, err := volume.OpenMeta(ctx, url, volume.Options{Create: &f})
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Close(ctx); err != nil {
		t.Fatal(err)
	}
	_, err = volume.Open(ctx, url, volume.Options{})
	// One line naming the volume, its bucket and every way to give the keys.
	for _, part := range []string{`volume "vol"`, "http://127.0.0.1:1/vol", "--access-key", "$ACCESS_KEY", "--secret-key", "$SECRET_KEY", "not stored in the volume"} {
		if err == nil || !strings.Contains(err.Error(), part) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Open without credentials = %v, want one line with %q", err, part)
		}
	}
	v, err = volume.OpenMeta(ctx, url, volume.Options{})
	if err != nil {
		t.Fatalf("open after a failed Open: %v", err)
	}
	v.Close(ctx)
}

// TestOpenUploadsStaged: blocks a writeback opening staged and could not
// upload (its bucket was unusable) are uploaded by the next opening without
// writeback, which fails, saying so, while they cannot be.
func TestOpenUploadsStaged(t *testing.T) {
	f := testFormat(t)
	url := format(t, f)
	cache := t.TempDir()
	writeback := volume.Options{CacheDir: cache}
	writeback.Blocks.Writeback = true
	v, err := volume.Open(ctx, url, writeback)
	if err != nil {
		t.Fatal(err)
	}
	// A file where the bucket directory was: every upload fails.
	if err := os.RemoveAll(f.Bucket); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.Bucket, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	data := pattern(150 << 10)
	writeFile(t, v, "f", data, true) // durable in the staging directory
	if err := v.Close(ctx); err != nil {
		t.Fatalf("close: %v", err)
	}

	if _, err := volume.Open(ctx, url, volume.Options{CacheDir: cache}); err == nil || !strings.Contains(err.Error(), "could not be uploaded") {
		t.Fatalf("Open while the staged blocks cannot be uploaded = %v", err)
	}
	if err := os.Remove(f.Bucket); err != nil {
		t.Fatal(err)
	}
	v, err = volume.Open(ctx, url, volume.Options{CacheDir: cache})
	if err != nil {
		t.Fatalf("Open once the bucket is usable again: %v", err)
	}
	defer v.Close(ctx)
	if got := readFile(t, v, "f"); !bytes.Equal(got, data) {
		t.Errorf("file written with writeback reads %d bytes, not the %d written", len(got), len(data))
	}
}
