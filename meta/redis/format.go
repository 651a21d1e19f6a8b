package redis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"cairn/meta"
)

// Init formats the volume, see meta.Engine.
func (e *Engine) Init(ctx context.Context, f meta.Format, force bool) error {
	setting, err := json.Marshal(f)
	if err != nil {
		return fmt.Errorf("encode volume settings: %w", err)
	}
	now := time.Now().UnixNano()
	root := meta.Attr{Type: meta.TypeDirectory, Mode: 0777, Nlink: 2, Length: 4096, Atime: now, Mtime: now, Ctime: now, Parent: meta.RootIno}
	forced := "0"
	if force {
		forced = "1"
	}
	_, err = e.call(ctx, "init", meta.RootCred, setting, forced, encodeAttr(&root), f.Capacity, f.Inodes)
	var rerr goredis.Error
	if errors.As(err, &rerr) {
		msg := scriptError(rerr)
		switch {
		case strings.HasPrefix(msg, "FORMATTED "):
			var old meta.Format
			_ = json.Unmarshal([]byte(strings.TrimPrefix(msg, "FORMATTED ")), &old)
			return fmt.Errorf("%s holds volume %q: %w", e.where, old.Name, meta.ErrFormatted)
		case msg == "FOREIGN":
			return e.foreign()
		}
	}
	if err != nil {
		return fmt.Errorf("format volume: %w", err)
	}
	return nil
}

// foreign is the refusal to touch a database that holds other data.
func (e *Engine) foreign() error {
	return fmt.Errorf("Redis database %s holds keys that are not a cairn volume with prefix %q: pick an empty database (e.g. redis://host:6379/2) or another prefix (?prefix=NAME)", e.where, e.prefix)
}

// Load reads the volume's settings, see meta.Engine.
func (e *Engine) Load(ctx context.Context) (meta.Format, error) {
	var f meta.Format
	raw, err := e.rdb.Get(ctx, e.prefix+":setting").Bytes()
	if errors.Is(err, goredis.Nil) {
		n, err := e.rdb.DBSize(ctx).Result()
		if err == nil && n > 0 {
			return f, fmt.Errorf("Redis database %s holds keys but no cairn volume with prefix %q: %w", e.where, e.prefix, meta.ErrNotFormatted)
		}
		return f, meta.ErrNotFormatted
	}
	if err != nil {
		return f, e.fail("load settings", err)
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		return f, fmt.Errorf("corrupt volume settings in %s: %w", e.where, err)
	}
	return f, meta.CheckVersion(f)
}
