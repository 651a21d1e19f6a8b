package main

import (
	"testing"

	"cairn/inspect"
)

// TestOpenBeside: a mount without a control channel (an older release)
// lets commands open its engine beside it, but for Badger, which opens in
// one process only.
func TestOpenBeside(t *testing.T) {
	for _, c := range []struct {
		url string
		ok  bool
	}{
		{"badger:///var/lib/cairn/vol", false},
		{"sqlite3:///var/lib/cairn/vol.db", true},
		{"redis://127.0.0.1:6379/1", true},
		{"postgres://cairn@db/cairn", true},
	} {
		err := openBeside(inspect.Target{MountPoint: "/mnt/vol", MetaURL: c.url}, "rmr")
		if (err == nil) != c.ok {
			t.Errorf("openBeside(%s) = %v, want ok %v", c.url, err, c.ok)
		}
	}
}
