package backup

import (
	"time"

	"cairn/meta"
)

// IsWriter says whether session own is the one that writes backups at
// now: the leader of meta.IsLeader, the rule every volume-wide job shares.
func IsWriter(sessions []meta.SessionInfo, own uint64, now time.Time, fresh time.Duration) bool {
	return meta.IsLeader(sessions, own, now, fresh)
}
