package tests

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// bucketKeys names the objects in v's bucket: files in its block
// directory (relative to it), or objects in its MinIO bucket.
func bucketKeys(t testing.TB, v *volume) []string {
	t.Helper()
	var keys []string
	if v.minio == nil {
		err := filepath.WalkDir(v.bucket, func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				keys = append(keys, strings.TrimPrefix(path, v.bucket+"/"))
			}
			return err
		})
		must(t, err, "walk the bucket")
		return keys
	}
	client, err := minio.New(v.minio.Endpoint(), &minio.Options{Creds: credentials.NewStaticV4(v.minio.AccessKey, v.minio.SecretKey, "")})
	must(t, err, "minio client")
	bucket := v.bucket[strings.LastIndexByte(v.bucket, '/')+1:]
	for obj := range client.ListObjects(context.Background(), bucket, minio.ListObjectsOptions{Recursive: true}) {
		must(t, obj.Err, "list objects")
		keys = append(keys, obj.Key)
	}
	return keys
}

// bucketObjects counts the objects in v's bucket.
func bucketObjects(t testing.TB, v *volume) int {
	t.Helper()
	return len(bucketKeys(t, v))
}

// destroyArgs is the command line of 'cairn destroy' for v.
func (v *volume) destroyArgs(uuid string, extra ...string) []string {
	return append(append([]string{"destroy", v.meta, uuid}, v.mountArgs...), extra...)
}

// TestDestroy: destroy refuses a wrong UUID and a mounted volume with one
// line and changes nothing; once unmounted, it removes every object and
// all metadata, and the URL takes a new volume.
func TestDestroy(t *testing.T) {
	needMount(t)
	v := formatVolume(t)
	uuid := status(t, v.meta).Setting.UUID
	v.mount(t)
	data := pattern(15, 9<<20+17)
	writeFile(t, v.path("big"), data)
	writeFile(t, v.path("small"), []byte("small"))
	must(t, os.MkdirAll(v.path("a", "b"), 0o755), "mkdir")
	objects := bucketObjects(t, v)
	if objects < 3 {
		t.Fatalf("the bucket holds %d objects after writing 9 MiB", objects)
	}

	if singleProcess() {
		// The mount holds the database: destroy cannot even open it.
		wantUserError(t, runCairn(t, v.destroyArgs(uuid)...))
	} else {
		wantUserError(t, runCairn(t, v.destroyArgs(uuid)...), "mounted", "--force", "nothing")
	}
	wantUserError(t, runCairn(t, "destroy", v.meta), "argument")
	if !bytes.Equal(readFile(t, v.path("big")), data) || bucketObjects(t, v) != objects {
		t.Fatalf("a refused destroy changed the volume")
	}

	v.unmount(t)
	wantUserError(t, runCairn(t, v.destroyArgs("0b7c3c9e-0000-4000-8000-000000000000")...), "not the uuid", "nothing")
	if st := status(t, v.meta); st.Setting.UUID != uuid || bucketObjects(t, v) != objects {
		t.Fatalf("a destroy with the wrong uuid changed the volume")
	}
	out := cairnOK(t, v.destroyArgs(uuid)...)
	if !strings.Contains(out, "destroyed") {
		t.Errorf("destroy printed %q", out)
	}
	if n := bucketObjects(t, v); n != 0 {
		t.Errorf("the bucket holds %d objects after destroy", n)
	}
	wantUserError(t, runCairn(t, "status", v.meta), "format")
	wantUserError(t, runCairn(t, v.destroyArgs(uuid)...), "format")

	// The URL takes a new volume, which starts empty.
	format := []string{"format", v.meta, v.name, "--bucket", v.bucket}
	if v.minio != nil {
		format = append(append(format, "--storage", "s3"), v.mountArgs...)
	}
	cairnOK(t, format...)
	if st := status(t, v.meta); st.Setting.UUID == uuid || st.Usage.UsedInodes != 1 {
		t.Errorf("the volume formatted after destroy: %+v", st)
	}
}

// TestDestroyForce destroys a volume while it is mounted.
func TestDestroyForce(t *testing.T) {
	if singleProcess() {
		t.Skipf("the %s engine serves one process at a time: nothing can destroy a mounted volume", engineName())
	}
	v := newVolume(t)
	writeFile(t, v.path("f"), pattern(16, 1<<20))
	uuid := status(t, v.meta).Setting.UUID
	cairnOK(t, v.destroyArgs(uuid, "--force")...)
	if keys := bucketKeys(t, v); len(keys) != 0 {
		t.Errorf("the bucket holds %d objects after destroy --force: %v", len(keys), keys)
	}
	wantUserError(t, runCairn(t, "status", v.meta), "format")
}
