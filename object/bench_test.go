package object_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"cairn/internal/testenv"
	"cairn/object"
)

// BenchmarkS3 puts and gets objects of a small file's size and of a block's
// size on MinIO over loopback, from one and from several goroutines. Besides
// the time it reports the CPU the client and the server spent per object,
// which says whose work an operation waits for: on a 2-core machine a put
// that costs the server 5 ms of CPU cannot go faster than that, however the
// client sends it.
func BenchmarkS3(b *testing.B) {
	m := testenv.MinIO(b)
	store := openMinIO(b, m, "bench", object.Options{})
	if err := store.Create(context.Background()); err != nil {
		b.Fatal(err)
	}
	server := serverPID(m.Port)
	for _, size := range []int{128 << 10, 4 << 20} {
		data := make([]byte, size)
		for i := range data {
			data[i] = byte(i * 7)
		}
		for _, threads := range []int{1, 4, 16} {
			name := fmt.Sprintf("%dKiB/threads=%d", size>>10, threads)
			b.Run("put/"+name, func(b *testing.B) {
				runParallel(b, server, threads, size, func(i int) error {
					return store.Put(context.Background(), fmt.Sprintf("%d/%d", size, i), data)
				})
			})
			b.Run("get/"+name, func(b *testing.B) {
				runParallel(b, server, threads, size, func(i int) error {
					_, err := store.Get(context.Background(), fmt.Sprintf("%d/%d", size, i%64), 0, -1)
					return err
				})
			})
		}
	}
}

// runParallel calls f(0..b.N-1) from threads goroutines.
func runParallel(b *testing.B, server, threads, size int, f func(i int) error) {
	// Make sure the objects the gets read exist.
	for i := 0; i < 64; i++ {
		if err := f(i); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(size))
	var next atomic.Int64
	var wg sync.WaitGroup
	var firstErr atomic.Value
	clientBefore, serverBefore := processCPU(0), processCPU(server)
	b.ResetTimer()
	start := time.Now()
	for t := 0; t < threads; t++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= b.N {
					return
				}
				if err := f(i); err != nil {
					firstErr.CompareAndSwap(nil, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if err, _ := firstErr.Load().(error); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "objects/s")
	b.ReportMetric(float64((processCPU(0)-clientBefore).Microseconds())/1000/float64(b.N), "client-cpu-ms/op")
	if server > 0 {
		b.ReportMetric(float64((processCPU(server)-serverBefore).Microseconds())/1000/float64(b.N), "server-cpu-ms/op")
	}
}

// processCPU is the user and system CPU time of process pid so far (0:
// this process).
func processCPU(pid int) time.Duration {
	if pid == 0 {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// Fields after the command name, which is in parentheses: utime is
	// the 12th and stime the 13th, in clock ticks (100 per second on Linux).
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	if len(fields) < 13 {
		return 0
	}
	utime, _ := strconv.Atoi(fields[11])
	stime, _ := strconv.Atoi(fields[12])
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// serverPID finds the MinIO process listening on port by its command line,
// or returns 0.
func serverPID(port int) int {
	want := fmt.Sprintf("127.0.0.1:%d", port)
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		cmd, err := os.ReadFile(p)
		if err != nil || !strings.Contains(string(cmd), "minio") {
			continue
		}
		args := strings.Split(string(cmd), "\x00")
		for i, a := range args {
			if a == "--address" && i+1 < len(args) && args[i+1] == want {
				pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
				return pid
			}
		}
	}
	return 0
}
