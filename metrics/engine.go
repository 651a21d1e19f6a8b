package metrics

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"cairn/meta"
)

// Engine is a meta.Engine that counts and times every call of the engine
// it wraps, by operation: cairn_meta_request_duration_seconds (a
// histogram, whose _count is the number of calls) and
// cairn_meta_errors_total (by operation and error: the errno's name, or
// "conflict" or "other"). An answer such as ENOENT from a lookup counts
// as an error too: it is what the engine returned.
//
// It embeds the wrapped engine so that a method added to meta.Engine
// later passes through (uncounted) rather than breaking the build; every
// method of meta.Engine as of this writing is instrumented here.
type Engine struct {
	meta.Engine
	m *engineMetrics
}

var _ meta.Engine = (*Engine)(nil)

type engineMetrics struct {
	latency *prometheus.HistogramVec
	errors  *prometheus.CounterVec
}

// NewEngine wraps eng and registers its metrics with reg.
func NewEngine(eng meta.Engine, reg prometheus.Registerer) (*Engine, error) {
	m := &engineMetrics{
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "cairn_meta_request_duration_seconds",
			Help:    "Latency of calls to the metadata engine, by operation; _count is the number of calls.",
			Buckets: latencyBuckets,
		}, []string{"op"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "cairn_meta_errors_total",
			Help: "Calls to the metadata engine that returned an error, by operation and error (errno name, conflict or other).",
		}, []string{"op", "error"}),
	}
	// A mount that follows an online migration wraps the engine it moves
	// to as well: the second wrapper counts into the first one's series.
	var err error
	if m.latency, err = register(reg, m.latency); err != nil {
		return nil, err
	}
	if m.errors, err = register(reg, m.errors); err != nil {
		return nil, err
	}
	return &Engine{Engine: eng, m: m}, nil
}

// register registers c, or returns the collector of the same description
// registered before.
func register[C prometheus.Collector](reg prometheus.Registerer, c C) (C, error) {
	err := reg.Register(c)
	var already prometheus.AlreadyRegisteredError
	if errors.As(err, &already) {
		if existing, ok := already.ExistingCollector.(C); ok {
			return existing, nil
		}
	}
	return c, err
}

// Unwrap returns the engine this one wraps.
func (e *Engine) Unwrap() meta.Engine { return e.Engine }

// Describe passes on what the wrapped engine says of its server, if
// anything (meta.Describer).
func (e *Engine) Describe() map[string]string {
	if d, ok := e.Engine.(meta.Describer); ok {
		return d.Describe()
	}
	return nil
}

var engineErrorClasses = []errorClass{{meta.ErrConflict, "conflict"}, {meta.ErrNotFormatted, "not_formatted"}}

func (e *Engine) done(op string, start time.Time, err error) {
	e.m.latency.WithLabelValues(op).Observe(time.Since(start).Seconds())
	if err != nil {
		e.m.errors.WithLabelValues(op, errorLabel(err, engineErrorClasses...)).Inc()
	}
}

func (e *Engine) Init(ctx context.Context, f meta.Format, force bool) error {
	start := time.Now()
	err := e.Engine.Init(ctx, f, force)
	e.done("init", start, err)
	return err
}

func (e *Engine) Load(ctx context.Context) (meta.Format, error) {
	start := time.Now()
	f, err := e.Engine.Load(ctx)
	e.done("load", start, err)
	return f, err
}

func (e *Engine) NewSession(ctx context.Context, info meta.SessionInfo) (uint64, error) {
	start := time.Now()
	sid, err := e.Engine.NewSession(ctx, info)
	e.done("new_session", start, err)
	return sid, err
}

func (e *Engine) Heartbeat(ctx context.Context, sid uint64) error {
	start := time.Now()
	err := e.Engine.Heartbeat(ctx, sid)
	e.done("heartbeat", start, err)
	return err
}

func (e *Engine) CloseSession(ctx context.Context, sid uint64) error {
	start := time.Now()
	err := e.Engine.CloseSession(ctx, sid)
	e.done("close_session", start, err)
	return err
}

func (e *Engine) ListSessions(ctx context.Context) ([]meta.SessionInfo, error) {
	start := time.Now()
	s, err := e.Engine.ListSessions(ctx)
	e.done("list_sessions", start, err)
	return s, err
}

func (e *Engine) CleanStaleSessions(ctx context.Context, before time.Time) (int, error) {
	start := time.Now()
	n, err := e.Engine.CleanStaleSessions(ctx, before)
	e.done("clean_stale_sessions", start, err)
	return n, err
}

func (e *Engine) NextInodes(ctx context.Context, n uint64) (meta.Ino, error) {
	start := time.Now()
	ino, err := e.Engine.NextInodes(ctx, n)
	e.done("next_inodes", start, err)
	return ino, err
}

func (e *Engine) NextSlices(ctx context.Context, n uint64) (uint64, error) {
	start := time.Now()
	id, err := e.Engine.NextSlices(ctx, n)
	e.done("next_slices", start, err)
	return id, err
}

func (e *Engine) Usage(ctx context.Context) (meta.Usage, error) {
	start := time.Now()
	u, err := e.Engine.Usage(ctx)
	e.done("usage", start, err)
	return u, err
}
