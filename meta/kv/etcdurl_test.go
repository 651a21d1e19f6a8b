package kv

import "testing"

// TestEtcdURLPassword: a password in the URL wins; a user without one
// takes META_PASSWORD, as on every engine.
func TestEtcdURLPassword(t *testing.T) {
	t.Setenv("META_PASSWORD", "from-env")
	cases := []struct{ url, user, password string }{
		{"etcd://root:inurl@127.0.0.1:2379/v", "root", "inurl"},
		{"etcd://root@127.0.0.1:2379/v", "root", "from-env"},
		{"etcd://127.0.0.1:2379/v", "", ""},
	}
	for _, c := range cases {
		got, err := parseEtcdURL(c.url)
		if err != nil {
			t.Fatalf("%s: %v", c.url, err)
		}
		if got.user != c.user || got.password != c.password {
			t.Errorf("%s: user %q password %q, want %q %q", c.url, got.user, got.password, c.user, c.password)
		}
	}
}
