package backup

import (
	"fmt"
	"time"
)

// Retention periods of Keep.
const (
	keepAll    = 48 * time.Hour
	keepDaily  = 14 * 24 * time.Hour
	keepWeekly = 52 * 7 * 24 * time.Hour
)

// Keep says which of the backups taken at the given moments to keep at
// now: every backup of the last two days; older ones up to two weeks, the
// first of each UTC day; older ones up to a year, the first of each week
// (ISO weeks, in UTC); none older. The newest backup is always kept, so a
// volume whose backups stopped long ago still has one. A moment after now
// (another machine's clock) is kept. taken may be in any order; the result
// is in the same order.
func Keep(now time.Time, taken []time.Time) []bool {
	keep := make([]bool, len(taken))
	newest := -1
	firstOfDay := map[string]int{}
	firstOfWeek := map[string]int{}
	for i, t := range taken {
		if newest < 0 || t.After(taken[newest]) {
			newest = i
		}
		age := now.Sub(t)
		switch {
		case age <= keepAll:
			keep[i] = true
		case age <= keepDaily:
			first(firstOfDay, t.UTC().Format("2006-01-02"), i, taken)
		case age <= keepWeekly:
			year, week := t.UTC().ISOWeek()
			first(firstOfWeek, fmt.Sprintf("%d-W%02d", year, week), i, taken)
		}
	}
	for _, i := range firstOfDay {
		keep[i] = true
	}
	for _, i := range firstOfWeek {
		keep[i] = true
	}
	if newest >= 0 {
		keep[newest] = true
	}
	return keep
}

// first records i under period when it is the earliest seen there.
func first(firsts map[string]int, period string, i int, taken []time.Time) {
	if j, ok := firsts[period]; !ok || taken[i].Before(taken[j]) {
		firsts[period] = i
	}
}
