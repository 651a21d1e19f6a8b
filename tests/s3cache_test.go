package tests

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"cairn/internal/testenv"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// TestS3WriteCaching writes a small file and a file of one full block plus
// a tail through a mount on MinIO, empties the bucket behind cairn's back,
// and reads both through a new mount with the same cache directory: with
// --cache-writes small (the default) the small file and the tail come from
// the disk cache and the full block is EIO; with none, everything is EIO.
// The mounts run in the foreground: an unmount returns once the uploads
// of a --writeback mount are done.
func TestS3WriteCaching(t *testing.T) {
	needMount(t)
	for _, tc := range []struct {
		name   string
		flags  []string
		cached bool
	}{
		{"small", nil, true},
		{"none", []string{"--cache-writes", "none"}, false},
		// Staged blocks go into the cache once uploaded.
		{"writeback", []string{"--writeback"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := s3Volume(t, "wcache")
			cache := filepath.Join(tempDir(t), "cache")
			mount := func() *testenv.Mount {
				args := append([]string{"mount", v.meta, v.dir, "--cache-dir", cache}, v.mountArgs...)
				return testenv.StartMount(t, exec.Command(cairnBin, append(args, tc.flags...)...), v.dir)
			}
			small := pattern(31, 100<<10)
			big := pattern(32, 4<<20+70<<10)
			m := mount()
			writeFile(t, filepath.Join(v.dir, "small"), small)
			writeFile(t, filepath.Join(v.dir, "big"), big)
			must(t, m.Unmount(), "unmount")

			emptyBucket(t, v.minio, "wcache")
			mount()
			got, err := os.ReadFile(filepath.Join(v.dir, "small"))
			if tc.cached && (err != nil || !bytes.Equal(got, small)) {
				t.Errorf("small file with the bucket emptied: %d bytes, %v; want it from the disk cache", len(got), err)
			}
			if !tc.cached && !errors.Is(err, syscall.EIO) {
				t.Errorf("small file not cached, bucket emptied: %v, want EIO", err)
			}
			f, err := os.Open(filepath.Join(v.dir, "big"))
			must(t, err, "open big")
			defer f.Close()
			tail := make([]byte, len(big)-4<<20)
			_, err = f.ReadAt(tail, 4<<20)
			if tc.cached && (err != nil || !bytes.Equal(tail, big[4<<20:])) {
				t.Errorf("tail of the big file with the bucket emptied: %v; want it from the disk cache", err)
			}
			if _, err := f.ReadAt(make([]byte, 4096), 0); !errors.Is(err, syscall.EIO) {
				t.Errorf("full block of the big file, bucket emptied: %v, want EIO (full blocks are not cached by default)", err)
			}
		})
	}
}

// emptyBucket deletes every object of bucket on m.
func emptyBucket(t testing.TB, m *testenv.MinIOServer, bucket string) {
	t.Helper()
	client, err := minio.New(m.Endpoint(), &minio.Options{Creds: credentials.NewStaticV4(m.AccessKey, m.SecretKey, "")})
	must(t, err, "minio client")
	ctx := context.Background()
	n := 0
	for obj := range client.ListObjects(ctx, bucket, minio.ListObjectsOptions{Recursive: true}) {
		must(t, obj.Err, "list objects")
		must(t, client.RemoveObject(ctx, bucket, obj.Key, minio.RemoveObjectOptions{}), "remove object")
		n++
	}
	if n == 0 {
		t.Fatalf("bucket %s held no objects to remove", bucket)
	}
}
