package tests

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"cairn/chunk"
	"cairn/internal/testenv"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// fileVolume formats a volume on the local-directory store, whatever
// CAIRN_TEST_STORAGE says, and does not mount it.
func fileVolume(t testing.TB, extra ...string) *volume {
	t.Helper()
	needBinary(t)
	v := &volume{name: "file-vol", meta: newMetaURL(t), bucket: filepath.Join(tempDir(t), "bucket")}
	cairnOK(t, append([]string{"format", v.meta, v.name, "--bucket", v.bucket}, trashOff(extra)...)...)
	v.dir = filepath.Join(tempDir(t), "mnt")
	must(t, os.Mkdir(v.dir, 0o755), "mkdir mount point")
	return v
}

// writeSynced writes data to a new file and fsyncs it before closing.
func writeSynced(t testing.TB, path string, data []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	must(t, err, "create "+path)
	_, err = f.Write(data)
	must(t, err, "write "+path)
	must(t, f.Sync(), "fsync "+path)
	must(t, f.Close(), "close "+path)
}

// storedObjects lists the block objects under the chunks/ directory of a
// bucket on disk, as the keys relative to it. For a local-directory store
// a key is a file; for MinIO it is a directory holding the object's parts.
func storedObjects(t testing.TB, chunksDir string, minioLayout bool) []string {
	t.Helper()
	var keys []string
	filepath.WalkDir(chunksDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(chunksDir, p)
		if !minioLayout && !d.IsDir() && !strings.HasPrefix(d.Name(), ".") {
			keys = append(keys, rel)
		}
		if minioLayout && !d.IsDir() && d.Name() == "xl.meta" {
			keys = append(keys, filepath.Dir(rel))
			return nil
		}
		return nil
	})
	slices.Sort(keys)
	return keys
}

// flipLargestFile flips one byte in the middle of the largest file under
// root (the object itself, or MinIO's part file holding its data).
func flipLargestFile(t testing.TB, root string) {
	t.Helper()
	var best string
	var bestSize int64 = -1
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil && fi.Size() > bestSize {
				best, bestSize = p, fi.Size()
			}
		}
		return nil
	})
	if best == "" {
		t.Fatalf("no stored file under %s", root)
	}
	b, err := os.ReadFile(best)
	must(t, err, "read stored block")
	b[len(b)/2] ^= 0x5a
	must(t, os.WriteFile(best, b, 0o644), "alter stored block")
}

// corruptionCase writes two files, alters one stored block of the first
// behind cairn's back, and checks through a fresh mount (no cache holds a
// good copy) that reading the first file is EIO, every time, while the
// second reads correctly; with wantLog, that the mount logged the corrupt
// block.
func corruptionCase(t *testing.T, v *volume, chunksDir string, minioLayout, wantLog bool, alter func(key string)) {
	v.mount(t)
	a, b := pattern(31, 3<<20), pattern(32, 2<<20+99)
	writeSynced(t, v.path("a"), a)
	objsA := storedObjects(t, chunksDir, minioLayout)
	writeSynced(t, v.path("b"), b)
	if len(objsA) < 3 {
		t.Fatalf("file a is stored as %d objects under %s, want 3 blocks of 1 MiB", len(objsA), chunksDir)
	}
	v.unmount(t)
	alter(filepath.ToSlash(objsA[1]))

	v.mount(t)
	for i := 0; i < 2; i++ {
		got, err := os.ReadFile(v.path("a"))
		if !errors.Is(err, syscall.EIO) {
			t.Errorf("read of a file with a corrupt block: %d bytes, error %v; want EIO", len(got), err)
		}
	}
	if got := readFile(t, v.path("b")); !bytes.Equal(got, b) {
		t.Errorf("file b beside the corrupt block reads %d bytes, not what was written", len(got))
	}
	if out := v.mnt.Output(); wantLog && !strings.Contains(out, "corrupt block") {
		t.Errorf("no log line about the corrupt block; mount output:\n%s", out)
	}
}

// TestCorruptBlockOnDisk alters one block file of a local-directory store.
func TestCorruptBlockOnDisk(t *testing.T) {
	needMount(t)
	v := fileVolume(t, "--block-size", "1M")
	chunks := filepath.Join(v.bucket, "chunks")
	corruptionCase(t, v, chunks, false, true, func(key string) { flipLargestFile(t, filepath.Join(chunks, key)) })
}

// TestCorruptBlockInMinIO alters one object in MinIO's data directory
// (MinIO's own bitrot check refuses to serve it) and, in a second volume,
// replaces one object through the S3 API with altered bytes (which only
// cairn's checksum can catch).
func TestCorruptBlockInMinIO(t *testing.T) {
	needMount(t)
	t.Run("on-disk", func(t *testing.T) {
		v := s3Volume(t, "corrupt", "--block-size", "1M")
		// MinIO answers a get of a block it finds rotten slowly (its
		// client's own retries), so each read waits out the mount's
		// --io-timeout before its EIO; keep that short here.
		v.mountArgs = append(v.mountArgs, "--io-timeout", "5s")
		chunks := filepath.Join(v.minio.Dir, "corrupt", "chunks")
		// MinIO refuses to serve it: cairn sees a failed get, not a bad
		// block, so there is no "corrupt block" line to expect.
		corruptionCase(t, v, chunks, true, false, func(key string) { flipLargestFile(t, filepath.Join(chunks, key)) })
	})
	t.Run("through-s3", func(t *testing.T) {
		v := s3Volume(t, "corrupt", "--block-size", "1M")
		m := v.minio
		corruptionCase(t, v, filepath.Join(m.Dir, "corrupt", "chunks"), true, true, func(key string) {
			client, err := minio.New(m.Endpoint(), &minio.Options{Creds: credentials.NewStaticV4(m.AccessKey, m.SecretKey, "")})
			must(t, err, "minio client")
			ctx := context.Background()
			obj, err := client.GetObject(ctx, "corrupt", "chunks/"+key, minio.GetObjectOptions{})
			must(t, err, "get block")
			b, err := io.ReadAll(obj)
			must(t, err, "read block")
			obj.Close()
			b[len(b)/2] ^= 0x5a
			_, err = client.PutObject(ctx, "corrupt", "chunks/"+key, bytes.NewReader(b), int64(len(b)), minio.PutObjectOptions{})
			must(t, err, "put altered block")
		})
	})
}

// TestMinIOStopsDuringWrite stops the object store while an application
// writes through the mount and fsyncs every 4 MiB, and restarts it. Each
// call may succeed or fail; after recovery, and through a fresh mount,
// every byte acknowledged by a successful fsync reads back exactly, and
// rewriting the rest succeeds.
func TestMinIOStopsDuringWrite(t *testing.T) {
	needMount(t)
	v := s3Volume(t, "fault", "--block-size", "1M")
	v.mount(t)
	const piece, total = 1 << 20, 48 << 20
	data := pattern(41, total)
	f, err := os.OpenFile(v.path("big"), os.O_CREATE|os.O_WRONLY, 0o644)
	must(t, err, "create")
	acked, failed := 0, error(nil)
	stopped, restarted := false, make(chan struct{})
	for off := 0; off < total && failed == nil; off += piece {
		if off == 8<<20 {
			v.minio.Stop()
			stopped = true
			// Back before the retry budget of some requests runs out and
			// after it of others.
			go func() {
				defer close(restarted)
				time.Sleep(4 * time.Second)
				v.minio.Start()
			}()
		}
		if _, err := f.WriteAt(data[off:off+piece], int64(off)); err != nil {
			failed = err
			break
		}
		if (off+piece)%(4<<20) == 0 {
			if err := f.Sync(); err != nil {
				failed = err
				break
			}
			acked = off + piece
		}
	}
	cerr := f.Close()
	t.Logf("MinIO stopped: %v; acknowledged %d MiB; first error %v; close: %v", stopped, acked>>20, failed, cerr)
	if !stopped {
		t.Fatal("the write ended before MinIO was stopped")
	}
	if failed != nil && !errors.Is(failed, syscall.EIO) {
		t.Errorf("a write or fsync failed with %v, want EIO", failed)
	}
	<-restarted

	v.remount(t)
	got := readFile(t, v.path("big"))
	if len(got) < acked {
		t.Fatalf("file is %d bytes after recovery, but %d were acknowledged", len(got), acked)
	}
	for i := 0; i < acked; i += piece {
		if !bytes.Equal(got[i:i+piece], data[i:i+piece]) {
			t.Fatalf("acknowledged MiB %d reads back wrong after recovery", i>>20)
		}
	}
	// With the store back, the application can finish its file.
	writeSynced(t, v.path("big"), data)
	v.remount(t)
	if got := readFile(t, v.path("big")); !bytes.Equal(got, data) {
		t.Errorf("rewritten file reads back %d bytes, not the %d written", len(got), len(data))
	}
}

// TestWritebackSurvivesKill writes with --writeback while MinIO is down, so
// that nothing can be uploaded; fsync still succeeds (the blocks are staged
// on local disk). cairn is killed with SIGKILL; a plain remount with the
// same cache directory uploads the staged blocks once MinIO is back, and a
// mount with an empty cache then reads exactly what was written.
func TestWritebackSurvivesKill(t *testing.T) {
	needMount(t)
	v := s3Volume(t, "wb-kill", "--block-size", "1M")
	cache := filepath.Join(tempDir(t), "cache")
	v.mount(t, "--writeback", "--cache-dir", cache)
	v.minio.Stop()
	small, big := []byte("staged, not uploaded"), pattern(51, 5<<20+7)
	writeSynced(t, v.path("small"), small)
	writeSynced(t, v.path("big"), big)
	must(t, v.mnt.Kill(), "kill cairn")
	testenv.ForceUnmount(t, v.dir)
	if countStagedBlocks(cache) == 0 {
		t.Fatalf("no staged blocks under %s after fsync in writeback mode", cache)
	}

	v.minio.Start()
	v.mount(t, "--cache-dir", cache) // without --writeback: drains first
	if got := readFile(t, v.path("small")); !bytes.Equal(got, small) {
		t.Errorf("small file after the restart: %q", got)
	}
	if !strings.Contains(v.mnt.Output(), "staged") {
		t.Errorf("the mount did not log uploading staged blocks:\n%s", v.mnt.Output())
	}
	v.unmount(t)
	if n := countStagedBlocks(cache); n != 0 {
		t.Errorf("%d blocks still staged after the restart", n)
	}

	v.mount(t) // a fresh cache: everything comes from MinIO
	if got := readFile(t, v.path("big")); !bytes.Equal(got, big) {
		t.Errorf("big file from MinIO: %d bytes, not the %d written", len(got), len(big))
	}
	if got := readFile(t, v.path("small")); !bytes.Equal(got, small) {
		t.Errorf("small file from MinIO: %q", got)
	}
}

// TestWritebackUploadsInBackground: with --writeback and the store up,
// blocks are uploaded soon after fsync, without an unmount.
func TestWritebackUploadsInBackground(t *testing.T) {
	needMount(t)
	v := s3Volume(t, "wb2", "--block-size", "1M")
	cache := filepath.Join(tempDir(t), "cache")
	v.mount(t, "--writeback", "--cache-dir", cache)
	data := pattern(61, 3<<20)
	writeSynced(t, v.path("f"), data)
	deadline := time.Now().Add(30 * time.Second)
	for countStagedBlocks(cache) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d blocks still staged 30s after fsync", countStagedBlocks(cache))
		}
		time.Sleep(50 * time.Millisecond)
	}
	must(t, v.mnt.Kill(), "kill cairn")
	testenv.ForceUnmount(t, v.dir)
	v.mount(t)
	if got := readFile(t, v.path("f")); !bytes.Equal(got, data) {
		t.Errorf("file from MinIO: %d bytes, not the %d written", len(got), len(data))
	}
}

// countStagedBlocks counts the blocks staged in the volumes' directories
// under a mount's cache directory.
func countStagedBlocks(cache string) int {
	dirs, _ := filepath.Glob(filepath.Join(cache, "*"))
	n := 0
	for _, d := range dirs {
		n += chunk.StagedBlocks(d)
	}
	return n
}
