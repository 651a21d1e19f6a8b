package redis

import (
	"context"
	"net"
	"sync/atomic"

	goredis "github.com/redis/go-redis/v9"
)

// counters are the engine's Stats, kept by a go-redis hook so that every
// request is counted, whichever code path sends it.
type counters struct {
	roundTrips atomic.Uint64
	retries    atomic.Uint64
	pauseWaits atomic.Uint64 // scripts answered PAUSED by a dump's pause
}

type rttHook struct{ c *counters }

var _ goredis.Hook = rttHook{}

func (h rttHook) DialHook(next goredis.DialHook) goredis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		return next(ctx, network, addr)
	}
}

func (h rttHook) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook {
	return func(ctx context.Context, cmd goredis.Cmder) error {
		h.c.roundTrips.Add(1)
		return next(ctx, cmd)
	}
}

func (h rttHook) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []goredis.Cmder) error {
		h.c.roundTrips.Add(1)
		return next(ctx, cmds)
	}
}
