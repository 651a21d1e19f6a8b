package dump

import (
	"context"
	"fmt"
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
