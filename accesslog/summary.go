package accesslog

import (
	"sort"
	"time"
)

// Total sums up requests of one kind: one operation, or one target.
type Total struct {
	Key    string // the operation, or the target (see Record.Target)
	Count  int
	Errors int
	Time   time.Duration
}

// Average is the mean time of one request.
func (t Total) Average() time.Duration {
	if t.Count == 0 {
		return 0
	}
	return t.Time / time.Duration(t.Count)
}

// Summary sums up records by operation and by target. It is not safe for
// concurrent use.
type Summary struct {
	Requests int
	Dropped  uint64 // lines the log said it dropped
	Skipped  int    // lines that were no access log line
	First    time.Time
	Last     time.Time

	ops     map[string]*Total
	targets map[string]*Total
}

// AddLine parses one line of a log and counts it.
func (s *Summary) AddLine(line string) {
	r, err := Parse(line)
	if err != nil {
		if n, ok := droppedCount(line); ok {
			s.Dropped += n
		} else if len(line) > 0 && line != "\n" {
			s.Skipped++
		}
		return
	}
	s.Add(r)
}

// Add counts one request.
func (s *Summary) Add(r Record) {
	if s.ops == nil {
		s.ops = make(map[string]*Total)
		s.targets = make(map[string]*Total)
	}
	s.Requests++
	if s.First.IsZero() || r.Time.Before(s.First) {
		s.First = r.Time
	}
	if r.Time.After(s.Last) {
		s.Last = r.Time
	}
	count(s.ops, r.Op, r)
	count(s.targets, r.Target(), r)
}

func count(m map[string]*Total, key string, r Record) {
	t := m[key]
	if t == nil {
		t = &Total{Key: key}
		m[key] = t
	}
	t.Count++
	t.Time += r.Duration
	if r.Failed() {
		t.Errors++
	}
}

// Operations returns the totals by operation, the most time first.
func (s *Summary) Operations() []Total { return sorted(s.ops, 0) }

// Targets returns the n targets that took the most time (all for n <= 0).
func (s *Summary) Targets(n int) []Total { return sorted(s.targets, n) }

func sorted(m map[string]*Total, n int) []Total {
	out := make([]Total, 0, len(m))
	for _, t := range m {
		out = append(out, *t)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Time != out[j].Time {
			return out[i].Time > out[j].Time
		}
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Key < out[j].Key
	})
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out
}
