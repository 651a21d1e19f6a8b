package object_test

import (
	"testing"

	"cairn/object"
)

// TestCredentials: an option wins, then cairn's own variable, then the one
// other S3 tools read; the access and the secret key each on their own.
func TestCredentials(t *testing.T) {
	for _, c := range []struct {
		option, own, common, want string
	}{
		{"option", "own", "common", "option"},
		{"", "own", "common", "own"},
		{"", "", "common", "common"},
		{"", "", "", ""},
	} {
		t.Setenv(object.AccessKeyEnv, c.own)
		t.Setenv(object.CommonAccessKeyEnv, c.common)
		t.Setenv(object.SecretKeyEnv, "own secret")
		t.Setenv(object.CommonSecretKeyEnv, "common secret")
		access, secret := object.Options{AccessKey: c.option}.Credentials()
		if access != c.want || secret != "own secret" {
			t.Errorf("access key option %q, $%s=%q, $%s=%q: got %q and secret %q, want %q and the own secret",
				c.option, object.AccessKeyEnv, c.own, object.CommonAccessKeyEnv, c.common, access, secret, c.want)
		}
		t.Setenv(object.SecretKeyEnv, c.own)
		t.Setenv(object.CommonSecretKeyEnv, c.common)
		if _, secret := (object.Options{SecretKey: c.option}).Credentials(); secret != c.want {
			t.Errorf("secret key option %q, $%s=%q, $%s=%q: got %q, want %q",
				c.option, object.SecretKeyEnv, c.own, object.CommonSecretKeyEnv, c.common, secret, c.want)
		}
	}
}
