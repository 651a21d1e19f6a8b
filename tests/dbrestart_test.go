package tests

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"cairn/internal/testenv"
)

// TestDatabaseRestartUnderMount restarts the metadata server (PostgreSQL,
// then MariaDB) while an application (a child process) creates, writes,
// fsyncs and closes files through a mount. Calls in flight may fail with EIO (their commit's
// outcome is unknown), nothing else; the mount carries on once the server
// is back, and every file whose close succeeded reads back exactly, through
// this mount and a fresh one.
func TestDatabaseRestartUnderMount(t *testing.T) {
	if e := engineName(); e != "sqlite3" {
		t.Skipf("starts its own PostgreSQL and MariaDB; runs once, in the default suite (not under CAIRN_TEST_ENGINE=%s)", e)
	}
	needMount(t)
	t.Run("PostgreSQL", func(t *testing.T) {
		srv := testenv.Postgres(t)
		restartUnderMount(t, srv.URL("postgres"), srv.Stop, srv.Start)
	})
	t.Run("MariaDB", func(t *testing.T) {
		srv := testenv.MariaDB(t)
		srv.SQL(t, "CREATE DATABASE cairn")
		restartUnderMount(t, srv.URL("cairn"), srv.Stop, srv.Start)
	})
}

// restartSize is the size of each file restartUnderMount writes.
const restartSize = 64 << 10

// restartUnderMount runs the writer as a child process (helperWriteFiles),
// as an application on the machine would: the test process, which starts
// the database server, then holds no descriptor on the mount for the
// server to inherit.
func restartUnderMount(t *testing.T, metaURL string, stop, start func()) {
	v := &volume{name: "restart", meta: metaURL}
	cairnOK(t, append([]string{"format", v.meta, v.name}, trashOff(v.storageArgs(t))...)...)
	v.dir = filepath.Join(tempDir(t), "mnt")
	must(t, os.Mkdir(v.dir, 0o755), "mkdir mount point")
	v.mount(t)

	cmd := exec.Command(helperBin, "writefiles", v.dir)
	cmd.Env = append(os.Environ(), helperEnv+"=1")
	stdin, err := cmd.StdinPipe()
	must(t, err, "writer stdin")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	must(t, cmd.Start(), "start the writer")
	time.Sleep(time.Second)
	stop()
	time.Sleep(2 * time.Second)
	start()
	time.Sleep(2 * time.Second)
	stdin.Close() // the writer finishes its file and stops
	if err := cmd.Wait(); err != nil {
		t.Fatalf("writer: %v\n%s", err, out.String())
	}

	var acked []int
	failed := 0
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			t.Fatalf("writer said %q", line)
		}
		i, err := strconv.Atoi(f[1])
		must(t, err, "writer's file number")
		switch f[0] {
		case "ok":
			acked = append(acked, i)
		case "EIO":
			failed++
		default:
			t.Errorf("f%d failed with %s, want EIO or success", i, f[0])
		}
	}
	t.Logf("%d files written and closed, %d failed with EIO across the restart", len(acked), failed)
	if len(acked) == 0 {
		t.Fatal("no file was written at all")
	}
	check := func(when string) {
		t.Helper()
		for _, i := range acked {
			got, err := os.ReadFile(v.path(fmt.Sprintf("f%d", i)))
			if err != nil || !bytes.Equal(got, pattern(uint64(i), restartSize)) {
				t.Fatalf("%s: f%d, acknowledged, reads back %d bytes, %v", when, i, len(got), err)
			}
		}
	}
	check("through the mount that lived through the restart")
	must(t, writeRestartFile(v.dir, 1_000_000), "a file written after the restart")
	v.remount(t)
	check("through a fresh mount")
}

// writeRestartFile creates file i in dir, writes it, fsyncs and closes it.
func writeRestartFile(dir string, i int) error {
	f, err := os.OpenFile(filepath.Join(dir, fmt.Sprintf("f%d", i)), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(pattern(uint64(i), restartSize))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// helperWriteFiles writes files f0, f1, ... in args[0] until its standard
// input closes, and prints a line for each: "ok N" or the errno's name
// and N.
func helperWriteFiles(args []string) int {
	if len(args) != 1 {
		fmt.Println("usage: helper writefiles DIR")
		return 2
	}
	var stop atomic.Bool
	go func() {
		io.Copy(io.Discard, os.Stdin)
		stop.Store(true)
	}()
	for i := 0; !stop.Load() && i < 100000; i++ {
		fmt.Println(outcome(writeRestartFile(args[0], i)), i)
	}
	return 0
}
