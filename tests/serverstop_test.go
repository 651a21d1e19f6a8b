package tests

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"cairn/internal/testenv"
)

// serverWaitBudget is the --io-timeout of the mounts in
// TestServerStopsUnderMount: long enough for a server to come back in,
// short enough to keep the test quick.
const serverWaitBudget = 8 * time.Second

// serverAwayFor is how long a server stays away while calls wait for it:
// past the few seconds the object store's own retries used to last.
const serverAwayFor = 3 * time.Second

// serverOps are the operations run while a server is away, in the order
// the helper prints them.
var serverOps = []string{"stat", "create", "mkdir", "write+fsync", "read", "readdir"}

// TestServerStopsUnderMount stops each server a mount depends on — Redis,
// PostgreSQL, MariaDB, two of three etcd members, MinIO holding the blocks
// — under a real mount, and has an application (a child process) stat,
// create, mkdir, write+fsync, read and readdir:
//
//   - while the server stays away longer than --io-timeout: each call
//     succeeds (from a cache, or needing only the other server) or fails
//     with EIO, never with ECONNREFUSED or any other errno, and the calls
//     that cannot do without the server do fail;
//   - while it comes back within --io-timeout: each call succeeds or fails
//     with EIO (a metadata change whose request may have reached the
//     server before it went away), and the reads (for MinIO, also
//     write+fsync) succeed once it is back in time;
//   - once it is back: every call succeeds, on the same mount.
func TestServerStopsUnderMount(t *testing.T) {
	if e := engineName(); e != "sqlite3" {
		t.Skipf("starts its own servers; runs once, in the default suite (not under CAIRN_TEST_ENGINE=%s)", e)
	}
	needMount(t)
	reads := []string{"stat", "read", "readdir"}
	t.Run("Redis", func(t *testing.T) {
		srv := testenv.Redis(t)
		serverStop(t, localVolume(t, srv.URL(1)), "mkdir", reads, srv.Stop, srv.Start)
	})
	t.Run("PostgreSQL", func(t *testing.T) {
		srv := testenv.Postgres(t)
		serverStop(t, localVolume(t, srv.URL("postgres")), "mkdir", reads, srv.Stop, srv.Start)
	})
	t.Run("MariaDB", func(t *testing.T) {
		srv := testenv.MariaDB(t)
		srv.SQL(t, "CREATE DATABASE cairn")
		serverStop(t, localVolume(t, srv.URL("cairn")), "mkdir", reads, srv.Stop, srv.Start)
	})
	t.Run("etcd majority", func(t *testing.T) {
		cluster := testenv.Etcd(t)
		stop := func() { cluster.Kill(0); cluster.Kill(1) }
		serverStop(t, localVolume(t, cluster.URL("cairn")), "mkdir", reads, stop, func() { cluster.Restart(0, 1) })
	})
	t.Run("MinIO", func(t *testing.T) {
		v := s3Volume(t, "serverstop")
		serverStop(t, v, "write+fsync", append(reads, "write+fsync"), v.minio.Stop, v.minio.Start)
	})
}

// localVolume formats a volume with its metadata at metaURL and its
// blocks in a local directory, and does not mount it.
func localVolume(t testing.TB, metaURL string) *volume {
	t.Helper()
	v := &volume{name: "serverstop", meta: metaURL, bucket: filepath.Join(tempDir(t), "bucket")}
	cairnOK(t, append([]string{"format", v.meta, v.name, "--bucket", v.bucket}, trashOff(nil)...)...)
	v.dir = filepath.Join(tempDir(t), "mnt")
	must(t, os.Mkdir(v.dir, 0o755), "mkdir mount point")
	return v
}

// serverStop runs the three rounds of TestServerStopsUnderMount on v;
// needsServer is a call that cannot succeed while the server is away,
// waits are the calls that must wait for it when it is back in time.
func serverStop(t *testing.T, v *volume, needsServer string, waits []string, stop, start func()) {
	v.mount(t, "--io-timeout", serverWaitBudget.String())
	writeSynced(t, v.path("seed"), pattern(7, 3<<20))
	must(t, os.Mkdir(v.path("dir"), 0o755), "mkdir dir")

	stop()
	away := serverOpsRun(t, v.dir, "away")
	for op, got := range away {
		if got != "ok" && got != "EIO" {
			t.Errorf("server away: %s failed with %s, want success or EIO", op, got)
		}
	}
	if away[needsServer] != "EIO" {
		t.Errorf("server away: %s gave %s, want EIO (was the server stopped?)", needsServer, away[needsServer])
	}
	if !v.mnt.WaitOutput("I/O error", 10*time.Second) {
		t.Errorf("the mount logged no I/O error while the server was away; its output:\n%s", v.mnt.Output())
	}
	start()

	// Away again, and back while the calls wait.
	stop()
	type outcome struct {
		got   map[string]string
		began time.Time
	}
	done := make(chan outcome)
	go func() {
		began := time.Now()
		done <- outcome{serverOpsRun(t, v.dir, "back"), began}
	}()
	time.Sleep(serverAwayFor)
	start()
	backAt := time.Now()
	back := <-done
	inTime := backAt.Sub(back.began) < serverWaitBudget-2*time.Second
	t.Logf("server back %v after the calls began (in time: %v): %v", backAt.Sub(back.began).Round(time.Millisecond), inTime, back.got)
	for op, got := range back.got {
		if got != "ok" && got != "EIO" {
			t.Errorf("server coming back: %s failed with %s, want success or EIO", op, got)
		}
		if inTime && got != "ok" && slices.Contains(waits, op) {
			t.Errorf("server back within --io-timeout: %s failed with %s", op, got)
		}
	}

	if t.Failed() {
		t.Logf("the mount's output:\n%s", v.mnt.Output())
	}

	after := serverOpsRun(t, v.dir, "after")
	for op, got := range after {
		if got != "ok" {
			t.Errorf("server back: %s on the same mount failed with %s", op, got)
		}
	}
	wantContent(t, v.path("write+fsync-after"), pattern(8, 1<<20))
}

// serverOpsRun runs helperServerOps in a child process, as an application
// would (the test process, which starts the servers, then holds nothing
// open on the mount), and returns each call's outcome.
func serverOpsRun(t *testing.T, dir, tag string) map[string]string {
	cmd := exec.Command(helperBin, "serverops", dir, tag)
	cmd.Env = append(os.Environ(), helperEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("serverops %s: %v\n%s", tag, err, out)
	}
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		op, result, _ := strings.Cut(line, " ")
		got[op] = result
	}
	for _, op := range serverOps {
		if _, ok := got[op]; !ok {
			t.Fatalf("serverops %s said nothing of %s:\n%s", tag, op, out)
		}
	}
	return got
}

// helperServerOps runs the calls of TestServerStopsUnderMount in
// DIR (args[0]) all at once, naming what it creates after TAG (args[1]),
// and prints a line for each: the call and "ok" or its errno's name.
func helperServerOps(args []string) int {
	if len(args) != 2 {
		fmt.Println("usage: helper serverops DIR TAG")
		return 2
	}
	dir, tag := args[0], args[1]
	path := func(name string) string { return filepath.Join(dir, name) }
	calls := map[string]func() error{
		"stat": func() error {
			_, err := os.Stat(path("seed"))
			return err
		},
		"create": func() error {
			f, err := os.OpenFile(path("create-"+tag), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
			if err == nil {
				err = f.Close()
			}
			return err
		},
		"mkdir": func() error { return os.Mkdir(path("mkdir-"+tag), 0o755) },
		"write+fsync": func() error {
			f, err := os.OpenFile(path("write+fsync-"+tag), os.O_CREATE|os.O_WRONLY, 0o644)
			if err != nil {
				return err
			}
			_, err = f.Write(pattern(8, 1<<20))
			if err == nil {
				err = f.Sync()
			}
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			return err
		},
		"read": func() error {
			b, err := os.ReadFile(path("seed"))
			if err == nil && !bytes.Equal(b, pattern(7, 3<<20)) {
				return errors.New("read back other bytes than were written")
			}
			return err
		},
		"readdir": func() error {
			f, err := os.Open(path("dir"))
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = f.Readdirnames(-1)
			return err
		},
	}
	results := make([]string, len(serverOps))
	var wg sync.WaitGroup
	for i, op := range serverOps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = outcome(calls[op]())
		}()
	}
	wg.Wait()
	for i, op := range serverOps {
		fmt.Println(op, results[i])
	}
	return 0
}
