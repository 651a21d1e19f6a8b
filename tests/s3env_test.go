package tests

import (
	"testing"

	"cairn/internal/testenv"
	"cairn/object"
)

// TestS3CommonCredentialVariables: with cairn's own variables empty,
// ACCESS_KEY and SECRET_KEY, the names other S3 tools read, reach MinIO;
// wrong ones are refused, so they are really what is used.
func TestS3CommonCredentialVariables(t *testing.T) {
	needBinary(t)
	m := testenv.MinIO(t)
	meta := newMetaURL(t)
	format := func(access, secret string) result {
		env := []string{object.AccessKeyEnv + "=", object.SecretKeyEnv + "=", "ACCESS_KEY=" + access, "SECRET_KEY=" + secret}
		return runCairnEnv(t, env, "format", meta, "common-env", "--storage", "s3", "--bucket", m.URL("common-env"))
	}
	wantUserError(t, format(m.AccessKey, "wrong-secret"), "access denied")
	if r := format(m.AccessKey, m.SecretKey); r.code != 0 {
		t.Fatalf("format with ACCESS_KEY and SECRET_KEY: exit %d: %s", r.code, r.stderr)
	}
	if st := status(t, meta); st.Setting.Storage != "s3" {
		t.Errorf("status says storage %q, want s3", st.Setting.Storage)
	}
}
