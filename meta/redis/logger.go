package redis

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	goredis "github.com/redis/go-redis/v9"
)

// go-redis prints its own diagnostics (a failed dial, a bad pooled
// connection) to stderr, which would add a second line to a user's one-line
// error. Its logger is process-wide, so it is replaced once, by one that
// hands the messages to slog at debug level.
var quietOnce sync.Once

type debugLogger struct{}

func (debugLogger) Printf(ctx context.Context, format string, v ...any) {
	slog.DebugContext(ctx, "go-redis: "+fmt.Sprintf(format, v...))
}

func quietGoRedis() { quietOnce.Do(func() { goredis.SetLogger(debugLogger{}) }) }
