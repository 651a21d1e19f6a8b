package redis

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	goredis "github.com/redis/go-redis/v9"

	"cairn/meta"
)

var _ meta.ChangeLog = (*Engine)(nil)

// The migration record is the string PREFIX:migration. The change log is
// the sorted set PREFIX:changes, scored by number, whose members are the
// number, ":" and meta.EncodeChange's bytes (the number keeps equal
// changes distinct); PREFIX:changeseq is its sequence, which exists
// exactly while the record does. Each script runs atomically, so appends
// are numbered in the order they commit.

// swapMigrationScript: KEYS record, log, sequence; ARGV has-old (0/1),
// old, has-next (0/1), next.
var swapMigrationScript = goredis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if ARGV[1] == '0' then
  if cur then return redis.error_reply('CONFLICT') end
elseif cur ~= ARGV[2] then
  return redis.error_reply('CONFLICT')
end
if ARGV[3] == '1' then redis.call('SET', KEYS[1], ARGV[4]) else redis.call('DEL', KEYS[1]) end
if ARGV[1] == '0' or ARGV[3] == '0' then
  redis.call('DEL', KEYS[2])
  if ARGV[3] == '1' then redis.call('SET', KEYS[3], 0) else redis.call('DEL', KEYS[3]) end
end
return 1
`)

// appendChangesScript: KEYS sequence, log; ARGV the encoded changes.
var appendChangesScript = goredis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return redis.error_reply('NOMIGRATION') end
local last = redis.call('INCRBY', KEYS[1], #ARGV)
local first = last - #ARGV + 1
for i, body in ipairs(ARGV) do
  local seq = first + i - 1
  redis.call('ZADD', KEYS[2], seq, seq .. ':' .. body)
end
return last
`)

// changesScript: KEYS sequence, log; ARGV after, limit.
var changesScript = goredis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return redis.error_reply('NOMIGRATION') end
return redis.call('ZRANGEBYSCORE', KEYS[2], '(' .. ARGV[1], '+inf', 'LIMIT', 0, ARGV[2])
`)

// trimChangesScript: KEYS sequence, log; ARGV through.
var trimChangesScript = goredis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return redis.error_reply('NOMIGRATION') end
return redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
`)

func (e *Engine) changeKeys() []string {
	return []string{e.prefix + ":changeseq", e.prefix + ":changes"}
}

// Migration implements meta.ChangeLog.
func (e *Engine) Migration(ctx context.Context) ([]byte, error) {
	rec, err := e.rdb.Get(ctx, e.prefix+":migration").Bytes()
	if errors.Is(err, goredis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, e.fail("read the migration record", err)
	}
	return rec, nil
}

// SwapMigration implements meta.ChangeLog.
func (e *Engine) SwapMigration(ctx context.Context, old, next []byte) error {
	if next != nil && len(next) == 0 {
		return fmt.Errorf("an empty migration record: %w", meta.ErrInvalid)
	}
	flag := func(b []byte) string {
		if b == nil {
			return "0"
		}
		return "1"
	}
	keys := []string{e.prefix + ":migration", e.prefix + ":changes", e.prefix + ":changeseq"}
	err := swapMigrationScript.Run(ctx, e.rdb, keys, flag(old), old, flag(next), next).Err()
	if err != nil {
		return e.fail("replace the migration record", err)
	}
	return nil
}

// AppendChanges implements meta.ChangeLog.
func (e *Engine) AppendChanges(ctx context.Context, changes []meta.Change) (uint64, error) {
	if len(changes) == 0 {
		return 0, meta.ErrInvalid
	}
	args := make([]any, len(changes))
	for i := range changes {
		args[i] = meta.EncodeChange(&changes[i])
	}
	last, err := appendChangesScript.Run(ctx, e.rdb, e.changeKeys(), args...).Uint64()
	if err != nil {
		return 0, e.fail(fmt.Sprintf("append %d changes", len(changes)), err)
	}
	return last, nil
}

// Changes implements meta.ChangeLog.
func (e *Engine) Changes(ctx context.Context, after uint64, limit int) ([]meta.Change, error) {
	members, err := changesScript.Run(ctx, e.rdb, e.changeKeys(), after, limit).StringSlice()
	if err != nil {
		return nil, e.fail(fmt.Sprintf("read the changes after %d", after), err)
	}
	out := make([]meta.Change, 0, len(members))
	for _, m := range members {
		number, body, ok := strings.Cut(m, ":")
		seq, err := strconv.ParseUint(number, 10, 64)
		if !ok || err != nil {
			return nil, fmt.Errorf("corrupt change log member %q: %w", m, meta.ErrIO)
		}
		c, err := meta.DecodeChange(seq, []byte(body))
		if err != nil {
			return nil, fmt.Errorf("corrupt change log: %v: %w", err, meta.ErrIO)
		}
		out = append(out, c)
	}
	return out, nil
}

// ChangesEnd implements meta.ChangeLog.
func (e *Engine) ChangesEnd(ctx context.Context) (uint64, error) {
	end, err := e.rdb.Get(ctx, e.prefix+":changeseq").Uint64()
	if errors.Is(err, goredis.Nil) {
		return 0, fmt.Errorf("read the end of the change log: %w", meta.ErrNoMigration)
	}
	if err != nil {
		return 0, e.fail("read the end of the change log", err)
	}
	return end, nil
}

// TrimChanges implements meta.ChangeLog.
func (e *Engine) TrimChanges(ctx context.Context, through uint64) error {
	if err := trimChangesScript.Run(ctx, e.rdb, e.changeKeys(), through).Err(); err != nil {
		return e.fail(fmt.Sprintf("trim the change log through %d", through), err)
	}
	return nil
}
