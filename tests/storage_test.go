package tests

import (
	"os"
	"path/filepath"
	"testing"

	"cairn/internal/testenv"
)

// The object store the suite keeps blocks in: CAIRN_TEST_STORAGE=file (the
// default, a local directory) or s3 (a MinIO server on loopback, one per
// volume, started by the test). The cases that count block files in the
// bucket directory (TestUnlinkWhileOpen, TestDeleteFreesSpace), check
// 'cairn format' output or flags for the file store (cli_test.go) or run
// 'cairn mount' without the volume's flags (TestBackgroundMountAndUmount)
// are file-only; the data, directory, lock, permission, persistence and
// crash cases run on both: scripts/test.sh lists them.
func storageName() string {
	if s := os.Getenv("CAIRN_TEST_STORAGE"); s != "" {
		return s
	}
	return "file"
}

// storageArgs makes a fresh bucket for v on the store under test and
// returns the 'cairn format' flags that name it. It sets v.bucket (a
// directory or a bucket URL) and v.mountArgs (what every mount of v needs).
func (v *volume) storageArgs(t testing.TB) []string {
	t.Helper()
	switch storageName() {
	case "file":
		v.bucket = filepath.Join(tempDir(t), "bucket")
		return []string{"--bucket", v.bucket}
	case "s3":
		m := testenv.MinIO(t)
		v.minio = m
		v.bucket = m.URL(v.name)
		v.mountArgs = []string{"--access-key", m.AccessKey, "--secret-key", m.SecretKey}
		return append([]string{"--storage", "s3", "--bucket", v.bucket}, v.mountArgs...)
	default:
		t.Fatalf("CAIRN_TEST_STORAGE=%s: use file or s3", storageName())
		return nil
	}
}
