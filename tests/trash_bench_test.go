package tests

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"
)

// makeTree creates dirs directories of files empty files each under
// root, through the mount, with 16 writers.
func makeTree(b *testing.B, root string, dirs, files int) {
	b.Helper()
	var wg sync.WaitGroup
	work := make(chan int)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for d := range work {
				dir := filepath.Join(root, fmt.Sprint("d", d))
				if err := os.MkdirAll(dir, 0o755); err != nil {
					b.Error(err)
					continue
				}
				for f := range files {
					if err := os.WriteFile(filepath.Join(dir, fmt.Sprint("f", f)), nil, 0o644); err != nil {
						b.Error(err)
					}
				}
			}
		}()
	}
	for d := range dirs {
		work <- d
	}
	close(work)
	wg.Wait()
}

var purgeReport = regexp.MustCompile(`removed (\d+) expired entries from the trash in ([0-9.]+)s`)

// BenchmarkTrashPurge measures how fast the trash is purged: a tree of
// 20,000 files is moved to the trash with 'cairn rmr', and 'cairn config
// --trash-days 0' purges it and says how long that took. Run it with
// -bench TrashPurge -benchtime 1x, per CAIRN_TEST_ENGINE.
func BenchmarkTrashPurge(b *testing.B) {
	needMount(b)
	if singleProcess() {
		b.Skipf("the %s engine serves one process at a time: config cannot open a mounted volume", engineName())
	}
	for range b.N {
		v := formatVolume(b, "--trash-days", "1")
		v.mount(b)
		makeTree(b, v.path("tree"), 100, 200)
		v.onMountOK(b, "rmr", v.path("tree"))
		out := cairnOK(b, "config", v.meta, "--trash-days", "0")
		m := purgeReport.FindStringSubmatch(out)
		if m == nil {
			b.Fatalf("config printed %q, want how many entries it purged", out)
		}
		n, _ := strconv.Atoi(m[1])
		secs, _ := strconv.ParseFloat(m[2], 64)
		b.ReportMetric(float64(n)/secs, "entries/s")
		b.Logf("%s: purged %d entries in %.2fs", engineName(), n, secs)
		v.unmount(b)
	}
}

// BenchmarkRmr compares 'cairn rmr' (trash off: a parallel removal
// through the engine) with rm -rf through the mount, on trees of 20,000
// files. rmr runs in the mount's process, so on Badger too.
func BenchmarkRmr(b *testing.B) {
	needMount(b)
	for range b.N {
		v := formatVolume(b)
		v.mount(b)
		makeTree(b, v.path("a"), 100, 200)
		makeTree(b, v.path("b"), 100, 200)
		start := time.Now()
		v.onMountOK(b, "rmr", v.path("a"))
		rmr := time.Since(start)
		start = time.Now()
		if out, err := exec.Command("rm", "-rf", v.path("b")).CombinedOutput(); err != nil {
			b.Fatalf("rm -rf: %v %s", err, out)
		}
		rm := time.Since(start)
		b.ReportMetric(20100/rmr.Seconds(), "rmr-entries/s")
		b.ReportMetric(20100/rm.Seconds(), "rm-rf-entries/s")
		b.Logf("%s: cairn rmr %.2fs, rm -rf %.2fs for 20,100 entries each", engineName(), rmr.Seconds(), rm.Seconds())
		v.unmount(b)
	}
}
