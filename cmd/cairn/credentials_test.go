package main

import "testing"

// TestCredential: a flag wins, then cairn's own variable, then the one
// other S3 tools read.
func TestCredential(t *testing.T) {
	for _, c := range []struct {
		flag, own, common, want string
	}{
		{"flag", "own", "common", "flag"},
		{"", "own", "common", "own"},
		{"", "", "common", "common"},
		{"", "", "", ""},
	} {
		t.Setenv("CAIRN_ACCESS_KEY", c.own)
		t.Setenv("ACCESS_KEY", c.common)
		if got := credential(c.flag, "CAIRN_ACCESS_KEY", accessKeyEnv); got != c.want {
			t.Errorf("credential(%q) with $CAIRN_ACCESS_KEY=%q $ACCESS_KEY=%q = %q, want %q", c.flag, c.own, c.common, got, c.want)
		}
	}
}
