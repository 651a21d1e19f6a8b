package backup

import (
	"slices"
	"testing"
	"time"
)

func TestKeep(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	hours := func(h ...float64) []time.Time {
		out := make([]time.Time, len(h))
		for i, x := range h {
			out[i] = now.Add(-time.Duration(x * float64(time.Hour)))
		}
		return out
	}
	for _, c := range []struct {
		name  string
		taken []time.Time
		want  []bool
	}{
		{"none", nil, []bool{}},
		{"all of the last two days", hours(0, 1, 2, 47, 48), []bool{true, true, true, true, true}},
		{"the first of each older day", hours(0, 49, 50, 60, 61, 62), []bool{true, false, false, true, false, true}},
		// 15 days before is Monday 2026-11-09: a week of its own.
		{"the first of each week after two weeks", hours(0, 15*24, 16*24, 17*24, 18*24, 19*24, 20*24, 21*24, 22*24),
			[]bool{true, true, false, false, false, false, false, false, true}},
		{"none older than a year", hours(1, 366*24), []bool{true, false}},
		{"the newest however old", hours(400*24, 500*24), []bool{true, false}},
		{"a clock ahead", hours(-5, 1), []bool{true, true}},
		{"any order", hours(62, 1, 61, 300*24), []bool{true, true, false, true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Keep(now, c.taken); !slices.Equal(got, c.want) {
				t.Errorf("Keep = %v, want %v", got, c.want)
			}
		})
	}
}

// TestKeepHistory runs an hourly schedule for a year and checks the
// history that remains: bounded, and as dense as promised.
func TestKeepHistory(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 30, 0, 0, time.UTC)
	var taken []time.Time
	now := start
	for now = start; now.Before(start.AddDate(1, 0, 0)); now = now.Add(time.Hour) {
		taken = append(taken, now)
		keep := Keep(now, taken)
		kept := taken[:0]
		for i, k := range keep {
			if k {
				kept = append(kept, taken[i])
			}
		}
		taken = kept
	}
	now = taken[len(taken)-1]
	recent, daily, weekly := 0, 0, 0
	for _, tk := range taken {
		switch age := now.Sub(tk); {
		case age <= keepAll:
			recent++
		case age <= keepDaily:
			daily++
		default:
			weekly++
		}
	}
	if recent != 49 || daily < 11 || daily > 13 || weekly < 48 || weekly > 51 || len(taken) > 120 {
		t.Errorf("after a year of hourly backups: %d in the last two days, %d daily, %d weekly (%d in all)", recent, daily, weekly, len(taken))
	}
}

func TestKeyRoundTrip(t *testing.T) {
	at := time.Date(2026, 11, 24, 3, 15, 0, 0, time.UTC)
	key := KeyFor(at.In(time.FixedZone("x", 3600)))
	if key != "meta/dump-20261124-031500.bin.gz" {
		t.Errorf("KeyFor = %s", key)
	}
	if got, ok := ParseKey(key); !ok || !got.Equal(at) {
		t.Errorf("ParseKey(%s) = %v, %v", key, got, ok)
	}
	for _, bad := range []string{"meta/dump-2026.bin.gz", "meta/other", "chunks/dump-20261124-031500.bin.gz", "meta/dump-20261124-031500.json"} {
		if _, ok := ParseKey(bad); ok {
			t.Errorf("ParseKey(%s) took it for a backup", bad)
		}
	}
}
