package redis

import (
	"errors"
	"fmt"
	"strings"

	goredis "github.com/redis/go-redis/v9"

	"cairn/meta"
)

// errnos maps the errno names scripts fail with to meta's sentinels.
var errnos = map[string]error{
	"ENOENT":    meta.ErrNotFound,
	"EEXIST":    meta.ErrExists,
	"ENOTDIR":   meta.ErrNotDir,
	"EISDIR":    meta.ErrIsDir,
	"ENOTEMPTY": meta.ErrNotEmpty,
	"EACCES":    meta.ErrAccess,
	"EPERM":     meta.ErrNotPermitted,
	"EINVAL":    meta.ErrInvalid,
	"ENODATA":   meta.ErrNoAttr,
	"ENOSPC":    meta.ErrNoSpace,
	"EFBIG":     meta.ErrTooBig,
	"EMLINK":    meta.ErrTooManyLinks,
	"ENOTSUP":   meta.ErrNotSupported,
	"EAGAIN":    meta.ErrAgain,
	"EIO":       meta.ErrIO,
	"ENODEV":    meta.ErrNoDevice,
	"CONFLICT":  meta.ErrConflict,
	// The change log scripts' answer when no migration runs.
	"NOMIGRATION": meta.ErrNoMigration,
	// The server's own refusals that callers can act on.
	"OOM":      meta.ErrNoSpace,  // maxmemory reached (noeviction)
	"READONLY": meta.ErrReadOnly, // connected to a replica
	"BUSY":     meta.ErrBusy,     // another script runs too long
}

// fail turns what a request to the server returned into the error
// callers see: a meta sentinel for a script's refusal, otherwise the
// server's or the network's error with the operation and server named.
func (e *Engine) fail(op string, err error) error {
	var rerr goredis.Error
	if errors.As(err, &rerr) {
		code, rest, _ := strings.Cut(scriptError(rerr), " ")
		if sentinel, ok := errnos[code]; ok {
			if rest != "" {
				return fmt.Errorf("redis %s: %s: %w", op, rest, sentinel)
			}
			return sentinel
		}
	}
	return fmt.Errorf("redis %s on %s: %w", op, e.where, err)
}

// scriptError is the message a script failed with; some servers put "ERR "
// in front of a message that has no error code of its own.
func scriptError(err goredis.Error) string {
	return strings.TrimPrefix(err.Error(), "ERR ")
}
