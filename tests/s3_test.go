package tests

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"cairn/internal/testenv"
	"cairn/object"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// s3Volume formats a volume whose blocks are in bucket of a MinIO server of
// its own, whatever CAIRN_TEST_STORAGE says, and does not mount it.
func s3Volume(t testing.TB, bucket string, extra ...string) *volume {
	t.Helper()
	needBinary(t)
	m := testenv.MinIO(t)
	v := &volume{name: "s3-vol", meta: newMetaURL(t), minio: m, bucket: m.URL(bucket)}
	v.mountArgs = []string{"--access-key", m.AccessKey, "--secret-key", m.SecretKey}
	args := append([]string{"format", v.meta, v.name, "--storage", "s3", "--bucket", v.bucket}, v.mountArgs...)
	cairnOK(t, append(args, trashOff(extra)...)...)
	v.dir = filepath.Join(tempDir(t), "mnt")
	must(t, os.Mkdir(v.dir, 0o755), "mkdir mount point")
	return v
}

// runCairnEnv runs the cairn binary with extra environment variables.
func runCairnEnv(t testing.TB, env []string, args ...string) result {
	t.Helper()
	needBinary(t)
	cmd := exec.Command(cairnBin, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	code := 0
	if err := cmd.Run(); err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("run cairn %v: %v", args, err)
		}
		code = ee.ExitCode()
	}
	return result{stdout: out.String(), stderr: errb.String(), code: code}
}

// noSecret fails the test if the output of a run shows the secret key.
func noSecret(t testing.TB, r result, secret string) {
	t.Helper()
	if strings.Contains(r.stdout+r.stderr, secret) {
		t.Errorf("output shows the secret key:\n%s%s", r.stdout, r.stderr)
	}
}

// TestS3FormatAndMount formats a volume on MinIO with the secret key in the
// environment, checks that no credential is stored in the metadata, and
// reads back through a mount what was written.
func TestS3FormatAndMount(t *testing.T) {
	needMount(t)
	m := testenv.MinIO(t)
	meta := newMetaURL(t)
	env := []string{object.SecretKeyEnv + "=" + m.SecretKey}
	r := runCairnEnv(t, env, "format", meta, "env-vol", "--storage", "s3", "--bucket", m.URL("env-vol"), "--access-key", m.AccessKey)
	if r.code != 0 {
		t.Fatalf("format on MinIO: exit %d: %s", r.code, r.stderr)
	}
	noSecret(t, r, m.SecretKey)
	status := cairnOK(t, "status", meta)
	if strings.Contains(status, m.SecretKey) {
		t.Errorf("status shows a credential:\n%s", status)
	}
	if strings.HasPrefix(meta, "sqlite3://") {
		db, err := os.ReadFile(strings.TrimPrefix(meta, "sqlite3://"))
		must(t, err, "read the metadata database")
		if strings.Contains(string(db), m.SecretKey) {
			t.Errorf("the metadata database holds the secret key")
		}
	}

	// A mount without credentials says what is missing.
	dir := filepath.Join(tempDir(t), "mnt")
	must(t, os.Mkdir(dir, 0o755), "mkdir")
	cache := filepath.Join(tempDir(t), "cache")
	wantUserError(t, runCairnEnv(t, []string{object.AccessKeyEnv + "=", object.SecretKeyEnv + "="}, "mount", meta, dir, "--cache-dir", cache), "access key", "secret key")

	cmd := exec.Command(cairnBin, "mount", meta, dir, "--cache-dir", cache)
	cmd.Env = append(os.Environ(), object.AccessKeyEnv+"="+m.AccessKey, object.SecretKeyEnv+"="+m.SecretKey)
	mnt := testenv.StartMount(t, cmd, dir)
	data := pattern(7, 9<<20+123)
	writeFile(t, filepath.Join(dir, "f"), data)
	must(t, mnt.Unmount(), "unmount")
	if strings.Contains(mnt.Output(), m.SecretKey) {
		t.Errorf("the mount's log shows the secret key")
	}
	cmd = exec.Command(cairnBin, "mount", meta, dir, "--cache-dir", filepath.Join(tempDir(t), "cache"),
		"--access-key", m.AccessKey, "--secret-key", m.SecretKey, "--upload-concurrency", "2", "--download-concurrency", "3")
	testenv.StartMount(t, cmd, dir)
	got, err := os.ReadFile(filepath.Join(dir, "f"))
	must(t, err, "read back")
	if !bytes.Equal(got, data) {
		t.Errorf("read back %d bytes, not the %d written", len(got), len(data))
	}
}

// TestS3FormatBadInput: wrong credentials, an unreachable endpoint and
// bucket names the store refuses are one line each at format, and leave no
// volume behind.
func TestS3FormatBadInput(t *testing.T) {
	needBinary(t)
	m := testenv.MinIO(t)
	meta := newMetaURL(t)
	creds := []string{"--access-key", m.AccessKey, "--secret-key", m.SecretKey}
	format := func(bucket string, flags ...string) result {
		return runCairn(t, append([]string{"format", meta, "vol-a", "--storage", "s3", "--bucket", bucket}, flags...)...)
	}
	r := format(m.URL("vol-a"), "--access-key", m.AccessKey, "--secret-key", "wrong-secret")
	wantUserError(t, r, "access denied", "secret key")
	r = format(m.URL("vol-a"), "--access-key", "nobody", "--secret-key", m.SecretKey)
	wantUserError(t, r, "access denied")
	noSecret(t, r, m.SecretKey)
	unreachable := fmt.Sprintf("http://127.0.0.1:%d/vol-a", testenv.FreePort(t))
	wantUserError(t, format(unreachable, creds...), "connection refused", "giving up")
	wantUserError(t, format(m.URL("minio"), creds...), "refuses bucket", "choose another name")
	wantUserError(t, format(m.URL("Bad_Name"), creds...), "not valid for S3")
	wantUserError(t, format("ftp://127.0.0.1/b", creds...), "not an S3 URL")
	wantUserError(t, format("", creds...), "--bucket")
	wantUserError(t, format(fmt.Sprintf("http://%s:%s@%s/vol-a", m.AccessKey, m.SecretKey, m.Endpoint()), creds...), "contains credentials")
	r = runCairnEnv(t, []string{object.AccessKeyEnv + "=", object.SecretKeyEnv + "="},
		"format", meta, "vol-a", "--storage", "s3", "--bucket", m.URL("vol-a"))
	wantUserError(t, r, "access key", "secret key")
	if r := runCairn(t, "status", meta); r.code == 0 {
		t.Errorf("a failed format left a volume behind:\n%s", r.stdout)
	}
	// The same flags with good credentials work, and create the bucket.
	cairnOK(t, append([]string{"format", meta, "vol-a", "--storage", "s3", "--bucket", m.URL("vol-a")}, creds...)...)
	if _, err := os.Stat(filepath.Join(m.Dir, "vol-a")); err != nil {
		t.Errorf("bucket vol-a not created in MinIO: %v", err)
	}
}

// TestS3MountBadInput: at mount, wrong credentials, a stopped server and a
// bucket that is gone are one line each, and nothing is mounted.
func TestS3MountBadInput(t *testing.T) {
	needMount(t)
	v := s3Volume(t, "vol-b")
	mount := func(flags ...string) result {
		args := append([]string{"mount", v.meta, v.dir, "--cache-dir", filepath.Join(tempDir(t), "cache")}, flags...)
		r := runCairnEnv(t, []string{object.AccessKeyEnv + "=", object.SecretKeyEnv + "="}, args...)
		if testenv.IsMounted(v.dir) {
			t.Errorf("mount %v mounted %s", flags, v.dir)
			testenv.ForceUnmount(t, v.dir)
		}
		return r
	}
	m := v.minio
	r := mount("--access-key", m.AccessKey, "--secret-key", "wrong-secret")
	wantUserError(t, r, "access denied", "s3-vol")
	r = mount("--access-key", m.AccessKey)
	wantUserError(t, r, "secret key")
	wantUserError(t, mount(append(v.mountArgs, "--upload-concurrency", "0")...), "concurrency")
	wantUserError(t, mount(append(v.mountArgs, "--cache-writes", "most")...), "cache-writes", "small, all or none")
	wantUserError(t, mount(append(v.mountArgs, "--writeback", "--cache-dir", "")...), "cache-dir")

	// The bucket is removed behind cairn's back.
	client, err := minio.New(m.Endpoint(), &minio.Options{Creds: credentials.NewStaticV4(m.AccessKey, m.SecretKey, "")})
	must(t, err, "minio client")
	must(t, client.RemoveBucket(context.Background(), "vol-b"), "remove bucket")
	wantUserError(t, mount(v.mountArgs...), "bucket", "does not exist")

	m.Stop()
	r = mount(v.mountArgs...)
	wantUserError(t, r, "does not answer", "connection refused")
	noSecret(t, r, m.SecretKey)
}
