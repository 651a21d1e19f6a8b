package backup

import (
	"testing"
	"time"

	"cairn/meta"
)

func TestIsWriter(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	fresh, stale := now.Add(-10*time.Second), now.Add(-2*time.Minute)
	sessions := func(beats ...time.Time) []meta.SessionInfo {
		out := make([]meta.SessionInfo, len(beats))
		for i, hb := range beats {
			out[i] = meta.SessionInfo{ID: uint64(i + 1), Heartbeat: hb}
		}
		return out
	}
	for _, c := range []struct {
		name     string
		sessions []meta.SessionInfo
		own      uint64
		want     bool
	}{
		{"alone", sessions(fresh), 1, true},
		{"alone, own heartbeat late", sessions(stale), 1, true},
		{"not yet listed", nil, 4, true},
		{"the lowest live", sessions(fresh, fresh, fresh), 1, true},
		{"a lower one is live", sessions(fresh, fresh, fresh), 3, false},
		{"the lower ones are stale", sessions(stale, stale, fresh), 3, true},
		{"a lower one of two is live", sessions(stale, fresh, fresh), 3, false},
		{"higher ones do not count", sessions(stale, fresh, fresh), 2, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := IsWriter(c.sessions, c.own, now, time.Minute); got != c.want {
				t.Errorf("IsWriter(session %d) = %v, want %v", c.own, got, c.want)
			}
		})
	}
}
