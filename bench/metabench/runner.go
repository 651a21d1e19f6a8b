package metabench

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"cairn/bench"
	"cairn/meta"
)

// Runner measures operations on one volume. Every round of every operation
// works in a fresh directory below a directory of the runner's own, which
// Close removes again unless the volume is a throw-away one.
type Runner struct {
	Vol    *bench.Volume
	ids    *bench.IDs
	base   meta.Ino
	name   string
	rounds int
}

// NewRunner makes the runner's directory on v.
func NewRunner(ctx context.Context, v *bench.Volume) (*Runner, error) {
	r := &Runner{Vol: v, ids: bench.NewIDs(v.Engine)}
	host, _ := os.Hostname()
	r.name = fmt.Sprintf("cairn-bench-%s-%d-%d", host, os.Getpid(), time.Now().UnixNano())
	f := &Fixture{Vol: v, Dir: meta.RootIno, IDs: r.ids}
	ino, err := f.dir(ctx, meta.RootIno, r.name)
	if err != nil {
		return nil, err
	}
	r.base = ino
	return r, nil
}

// Close removes the runner's directory, unless the volume is a throw-away
// one that nobody will look at again.
func (r *Runner) Close(ctx context.Context) error {
	if r.Vol.Formatted {
		return nil
	}
	return bench.RemoveTree(ctx, r.Vol, meta.RootIno, r.name)
}

// Prepare builds, untimed, a round of n runs of op in a fresh directory.
func (r *Runner) Prepare(ctx context.Context, op Op, n int) (func(i int) error, error) {
	r.rounds++
	f := &Fixture{Vol: r.Vol, IDs: r.ids}
	dir, err := f.dir(ctx, r.base, op.Name+"-"+strconv.Itoa(r.rounds))
	if err != nil {
		return nil, fmt.Errorf("prepare %s: %w", op.Name, err)
	}
	f.Dir = dir
	run, err := op.Prepare(ctx, f, n)
	if err != nil {
		return nil, fmt.Errorf("prepare %d runs of %s: %w", n, op.Name, err)
	}
	return run, nil
}

// Sample is one timed round.
type Sample struct {
	N          int
	Elapsed    time.Duration
	RoundTrips uint64
}

// NsPerOp is the mean latency of the round.
func (s Sample) NsPerOp() float64 { return float64(s.Elapsed.Nanoseconds()) / float64(s.N) }

// RTTPerOp is the mean number of database round trips per operation.
func (s Sample) RTTPerOp() float64 { return float64(s.RoundTrips) / float64(s.N) }

// Round prepares and times n runs of op.
func (r *Runner) Round(ctx context.Context, op Op, n int) (Sample, error) {
	run, err := r.Prepare(ctx, op, n)
	if err != nil {
		return Sample{}, err
	}
	before := r.Vol.Engine.Stats().RoundTrips
	start := time.Now()
	for i := 0; i < n; i++ {
		if err := run(i); err != nil {
			return Sample{}, fmt.Errorf("%s, run %d of %d: %w", op.Name, i+1, n, err)
		}
	}
	s := Sample{N: n, Elapsed: time.Since(start)}
	s.RoundTrips = r.Vol.Engine.Stats().RoundTrips - before
	return s, nil
}

// Benchtime is how long, or how many times, to run each operation: either
// a duration ("1s") or a count ("100x"), as go test's -benchtime.
type Benchtime struct {
	D time.Duration
	N int
}

// ParseBenchtime reads "1s", "500ms" or "100x".
func ParseBenchtime(s string) (Benchtime, error) {
	if c, ok := strings.CutSuffix(s, "x"); ok {
		n, err := strconv.Atoi(c)
		if err != nil || n <= 0 {
			return Benchtime{}, fmt.Errorf("benchtime %q: a count must be a positive whole number, e.g. 100x", s)
		}
		return Benchtime{N: n}, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return Benchtime{}, fmt.Errorf("benchtime %q: want a duration such as 1s or a count such as 100x", s)
	}
	return Benchtime{D: d}, nil
}

func (b Benchtime) String() string {
	if b.N > 0 {
		return strconv.Itoa(b.N) + "x"
	}
	return b.D.String()
}

// Measure runs op for bt: a fixed count in one round, or, for a duration,
// rounds of growing size until one lasts at least bt, the way go test
// sizes b.N. The last round is the result.
func (r *Runner) Measure(ctx context.Context, op Op, bt Benchtime) (Sample, error) {
	if bt.N > 0 {
		return r.Round(ctx, op, bt.N)
	}
	n := 1
	for {
		s, err := r.Round(ctx, op, n)
		if err != nil {
			return s, err
		}
		if s.Elapsed >= bt.D || n >= 1e9 {
			return s, nil
		}
		n = nextN(n, s.Elapsed, bt.D)
	}
}

// nextN predicts how many runs fill d, given that n took took: 20% more
// than the prediction, at least one more than n and at most 100 times n.
func nextN(n int, took, d time.Duration) int {
	per := took.Nanoseconds() / int64(n)
	if per <= 0 {
		per = 1
	}
	next := int(d.Nanoseconds() / per * 6 / 5)
	next = min(next, 100*n, 1e9)
	return max(next, n+1)
}
