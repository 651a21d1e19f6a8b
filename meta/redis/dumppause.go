package redis

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// Redis has no snapshot a client can read from over many requests, so a
// dump pauses the changes to its own volume while it reads, and only
// those: other keys, volumes and databases on the server go on as usual.
//
// The pause is the sorted set PREFIX:dumping. Each dump adds a member of
// its own whose score is when it expires (server time, ms) and renews it
// as it goes; the key itself expires with its latest member, so a dumper
// that dies without lifting its pause holds the volume for at most
// pauseTTL. Several dumps may run at once: each removes only its own
// member, and the volume resumes when the last one is out.
//
// Every script that changes the volume starts by checking the key
// (scripts/paused.lua): while it exists the script changes nothing and
// answers PAUSED, and callAt waits and sends it again. A script is atomic,
// so the dump's reads see the volume between two operations.
const (
	pauseTTL   = 30 * time.Second
	pauseRenew = 10 * time.Second
)

// pauseScript holds (ARGV[1] = "hold") or lifts ("lift") the pause of the
// member ARGV[2], for ARGV[3] ms; KEYS[1] is the pause's key.
var pauseScript = goredis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if ARGV[1] == 'hold' then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[2])
else
  redis.call('ZREM', KEYS[1], ARGV[2])
end
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
if #last == 2 then redis.call('PEXPIREAT', KEYS[1], last[2]) end
return redis.call('ZCARD', KEYS[1])
`)

// dumpPause is one dump's hold on its volume's pause.
type dumpPause struct {
	e        *Engine
	member   string
	ttl      time.Duration
	done     chan struct{}
	renewing chan struct{}
}

// pauseVolume pauses the volume's changes until lift is called, renewing
// the pause every ttl/3 meanwhile.
func (e *Engine) pauseVolume(ctx context.Context, ttl time.Duration) (*dumpPause, error) {
	id := make([]byte, 8)
	rand.Read(id)
	p := &dumpPause{e: e, member: hex.EncodeToString(id), ttl: ttl, done: make(chan struct{}), renewing: make(chan struct{})}
	if err := p.hold(ctx); err != nil {
		return nil, err
	}
	go func() {
		defer close(p.renewing)
		t := time.NewTicker(ttl / 3)
		defer t.Stop()
		for {
			select {
			case <-p.done:
				return
			case <-t.C:
				if err := p.hold(ctx); err != nil {
					e.log.Warn("renew the pause of a dump", "err", err)
				}
			}
		}
	}()
	return p, nil
}

func (p *dumpPause) hold(ctx context.Context) error {
	return pauseScript.Run(ctx, p.e.rdb, []string{p.e.prefix + ":dumping"}, "hold", p.member, p.ttl.Milliseconds()).Err()
}

// lift stops renewing and removes this dump's member.
func (p *dumpPause) lift(ctx context.Context) error {
	close(p.done)
	<-p.renewing
	return pauseScript.Run(ctx, p.e.rdb, []string{p.e.prefix + ":dumping"}, "lift", p.member, 0).Err()
}

// isPaused says whether a script refused to run because of a dump's pause.
func isPaused(err error) bool {
	var rerr goredis.Error
	return errors.As(err, &rerr) && len(scriptError(rerr)) >= 6 && scriptError(rerr)[:6] == "PAUSED"
}

// pauseWait is how long a paused script waits before it is sent again:
// from a millisecond, doubling up to 50 ms (a dump lasts from a fraction
// of a second to minutes).
type pauseWait struct{ d time.Duration }

func (w *pauseWait) next(ctx context.Context) error {
	w.d = min(max(2*w.d, time.Millisecond), 50*time.Millisecond)
	t := time.NewTimer(w.d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
