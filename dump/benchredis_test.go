package dump

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"cairn/internal/testenv"
)

// cpuClock reads the CPU time this process has used and, if server is
// set, the server's: on a machine of two cores, where client and server
// share the CPUs with each other (and with whatever else runs), CPU time
// says which of them limits a run better than the wall clock does.
type cpuClock struct{ server func() time.Duration }

type cpuReading struct{ client, server time.Duration }

func (c cpuClock) now() cpuReading {
	var r cpuReading
	var usage syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &usage) == nil {
		r.client = time.Duration(usage.Utime.Nano() + usage.Stime.Nano())
	}
	if c.server != nil {
		r.server = c.server()
	}
	return r
}

// since describes the CPU time used after start.
func (c cpuClock) since(start cpuReading) string {
	now := c.now()
	text := fmt.Sprintf("client CPU %v", (now.client - start.client).Round(10*time.Millisecond))
	if c.server != nil {
		text += fmt.Sprintf(", server CPU %v", (now.server - start.server).Round(10*time.Millisecond))
	}
	return text
}

// redisCPU reads redis-server's CPU time from INFO cpu.
func redisCPU(b *testing.B, srv *testenv.RedisServer) func() time.Duration {
	rdb := goredis.NewClient(&goredis.Options{Addr: srv.Addr(), Protocol: 2, DisableIdentity: true})
	b.Cleanup(func() { rdb.Close() })
	return func() time.Duration {
		text, err := rdb.Info(context.Background(), "cpu").Result()
		if err != nil {
			b.Fatalf("INFO cpu: %v", err)
		}
		var seconds float64
		for _, line := range strings.Split(text, "\n") {
			name, value, _ := strings.Cut(strings.TrimSpace(line), ":")
			if name == "used_cpu_user" || name == "used_cpu_sys" {
				v, _ := strconv.ParseFloat(value, 64)
				seconds += v
			}
		}
		return time.Duration(seconds * float64(time.Second))
	}
}

// BenchmarkRedisCeiling measures what redis-server itself allows a load:
// a million files (CAIRN_DUMP_INODES) of one slice each, in directories
// of 1,000, written as pipelined commands straight from the benchmark, two
// pipelines in flight, no cairn code in the way. Each sub-benchmark is
// one layout: "cairn" writes the keys and members cairn's Redis engine
// writes per file (attributes in an MSET, the entry in a ZADD, the chunk's
// list, the set of chunk indexes, the slice's reference in an HSET);
// "no-index-no-ref" drops the index set and the reference; "chunk-string"
// keeps only an MSET of attributes and chunks, and the entries. What the
// server's CPU costs per file bounds every loader's rate on it.
func BenchmarkRedisCeiling(b *testing.B) {
	n := 1_000_000
	if v, err := strconv.Atoi(os.Getenv("CAIRN_DUMP_INODES")); err == nil {
		n = v
	}
	srv := testenv.Redis(b)
	rdb := goredis.NewClient(&goredis.Options{Addr: srv.Addr(), Protocol: 2, DisableIdentity: true, PoolSize: 4})
	b.Cleanup(func() { rdb.Close() })
	ctx := context.Background()
	for _, layout := range []string{"cairn", "no-index-no-ref", "chunk-string"} {
		b.Run(layout, func(b *testing.B) {
			serverCPU := redisCPU(b, srv)
			for b.Loop() {
				if err := rdb.FlushAll(ctx).Err(); err != nil {
					b.Fatal(err)
				}
				cpu0, start := serverCPU(), time.Now()
				pipelines := make(chan []goredis.Cmder, 2)
				failed := make(chan error, 2)
				for range 2 {
					go func() {
						var err error
						for cmds := range pipelines {
							if err == nil {
								p := rdb.Pipeline()
								for _, c := range cmds {
									_ = p.Process(ctx, c)
								}
								_, err = p.Exec(ctx)
							}
						}
						failed <- err
					}()
				}
				attr, slice := strings.Repeat("a", 80), strings.Repeat("s", 24)
				for dir := 0; dir*1000 < n; dir++ {
					mset := []any{"mset"}
					zadd := []any{"zadd", "v:d" + strconv.Itoa(dir)}
					hset := []any{"hset", "v:refs"}
					var cmds []goredis.Cmder
					for f := dir * 1000; f < n && f < (dir+1)*1000; f++ {
						ino := strconv.Itoa(f + 2)
						mset = append(mset, "v:i"+ino, attr)
						zadd = append(zadd, 0, "f"+ino+"\x00\x01inode-no")
						switch layout {
						case "chunk-string":
							mset = append(mset, "v:c"+ino+":0", slice)
							continue
						case "cairn":
							cmds = append(cmds, goredis.NewIntCmd(ctx, "sadd", "v:cl"+ino, 0))
							hset = append(hset, ino, 1)
						}
						cmds = append(cmds, goredis.NewIntCmd(ctx, "rpush", "v:c"+ino+":0", slice))
					}
					cmds = append(cmds, goredis.NewStatusCmd(ctx, mset...), goredis.NewIntCmd(ctx, zadd...))
					if len(hset) > 2 {
						cmds = append(cmds, goredis.NewIntCmd(ctx, hset...))
					}
					pipelines <- cmds
				}
				close(pipelines)
				for range 2 {
					if err := <-failed; err != nil {
						b.Fatal(err)
					}
				}
				elapsed := time.Since(start)
				b.ReportMetric(float64(n)/elapsed.Seconds(), "files/s")
				b.ReportMetric(float64((serverCPU()-cpu0).Microseconds())/float64(n), "server-µs/file")
			}
		})
	}
}
