package backup

import (
	"time"

	"cairn/meta"
)

// IsWriter says whether session own is the one that writes backups at
// now: the lowest id among the sessions whose heartbeat is at most fresh
// old. A session's own entry counts even if its heartbeat looks stale
// (its clock may differ from the one that stamped it), so a lone client
// always writes.
func IsWriter(sessions []meta.SessionInfo, own uint64, now time.Time, fresh time.Duration) bool {
	for _, s := range sessions {
		if s.ID == own || s.ID > own {
			continue
		}
		if now.Sub(s.Heartbeat) <= fresh {
			return false
		}
	}
	return true
}
