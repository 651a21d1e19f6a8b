package meta

import "time"

// IsLeader says whether session own is the one client that runs a
// volume-wide periodic job (metadata backups, the trash purge) at now: the
// lowest id among the sessions whose heartbeat is at most fresh old. A
// session's own entry counts even if its heartbeat looks stale (its clock
// may differ from the one that stamped it), so a lone client always leads.
func IsLeader(sessions []SessionInfo, own uint64, now time.Time, fresh time.Duration) bool {
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
