package tests

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"
)

// TestUnlinkDeletesInOneCommit: on an engine that deletes a file in its
// unlink's own commit (meta.UnlinkDelete), removing files nobody holds
// open releases no orphan afterwards — the second commit an unlink used
// to cost — and still frees their space; a file open here is still kept
// until its last close (TestUnlinkWhileOpen).
func TestUnlinkDeletesInOneCommit(t *testing.T) {
	needMount(t)
	v := formatVolume(t)
	v.mount(t, "--attr-cache", "1h", "--entry-cache", "1h", "--dir-entry-cache", "1h")
	releases := func() uint64 {
		var s struct {
			Ops map[string]struct{ Count uint64 } `json:"ops"`
		}
		if err := json.Unmarshal(readFile(t, v.path(".stats")), &s); err != nil {
			t.Fatal(err)
		}
		return s.Ops["meta.release_orphan"].Count
	}
	const n = 10
	for i := 0; i < n; i++ {
		writeFile(t, v.path(fmt.Sprintf("f%d", i)), pattern(uint64(i), 1<<20))
	}
	used0 := usedBytes(statfs(t, v.dir))
	before := releases()
	for i := 0; i < n; i++ {
		must(t, os.Remove(v.path(fmt.Sprintf("f%d", i))), "unlink")
	}
	if got := releases() - before; got != 0 {
		t.Errorf("unlinking %d closed files released %d orphans afterwards, want none (deleted in the unlink's commit)", n, got)
	}
	if !eventually(20*time.Second, func() bool { return usedBytes(statfs(t, v.dir))+n<<20 <= used0 }) {
		t.Errorf("statfs shows %d bytes used after %d MiB were unlinked (was %d)", usedBytes(statfs(t, v.dir)), n, used0)
	}
}
