package chunk

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

// A disk cache whose file system is nearly full does not cache, and says
// so once in the log; when there is room again it says that once too,
// and caches again.
func TestDiskCacheSaysWhenFull(t *testing.T) {
	var logged bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logged, nil))
	c, err := openDiskCache(t.TempDir(), 1<<30, log, func() {})
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	c.minFree = 1.01 // no file system has more room than it holds
	for _, key := range []string{"chunks/0/0/1_0_5", "chunks/0/0/2_0_5"} {
		if err := c.write(key, []byte("hello")); err != nil {
			t.Fatal(err)
		}
		if _, ok := c.get(key); ok {
			t.Errorf("%s cached on a nearly full disk", key)
		}
	}
	if n := strings.Count(logged.String(), "nearly full"); n != 1 {
		t.Errorf("the log says the disk is nearly full %d times, want once:\n%s", n, logged.String())
	}
	c.minFree = 0
	for _, key := range []string{"chunks/0/0/3_0_5", "chunks/0/0/4_0_5"} {
		if err := c.write(key, []byte("hello")); err != nil {
			t.Fatal(err)
		}
		if got, ok := c.get(key); !ok || string(got) != "hello" {
			t.Errorf("%s with room on the disk: %q, %v; want it cached", key, got, ok)
		}
	}
	if n := strings.Count(logged.String(), "room again"); n != 1 {
		t.Errorf("the log says there is room again %d times, want once:\n%s", n, logged.String())
	}
}
