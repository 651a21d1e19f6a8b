package metrics

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"cairn/object"
)

// Store is an object.Store that counts and times every request to the
// store it wraps, by operation (put, get, head, delete, list):
// cairn_object_request_duration_seconds (a histogram, whose _count is the
// number of requests), cairn_object_errors_total and
// cairn_object_bytes_total (bytes sent by put, received by get). A Get of
// a missing object counts as an error.
//
// It passes object.Syncer on to the wrapped store, and object.GetterInto
// when the wrapped store has it (NewStore then returns a Store that
// implements it too), so that wrapping changes neither durability nor
// buffer reuse; a Sync is timed as op "sync", a GetInto as a get.
type Store struct {
	object.Store
	latency *prometheus.HistogramVec
	errors  *prometheus.CounterVec
	bytes   *prometheus.CounterVec
}

var (
	_ object.Store      = (*Store)(nil)
	_ object.Syncer     = (*Store)(nil)
	_ object.GetterInto = storeInto{}
)

// storeOps are the operations counted; their series exist from the
// start, at zero.
var storeOps = []string{"put", "get", "head", "delete", "list", "sync"}

// NewStore wraps s and registers its metrics with reg.
func NewStore(s object.Store, reg prometheus.Registerer) (object.Store, error) {
	w, err := newStore(s, reg)
	if err != nil {
		return nil, err
	}
	if _, ok := s.(object.GetterInto); ok {
		return storeInto{w}, nil
	}
	return w, nil
}

func newStore(s object.Store, reg prometheus.Registerer) (*Store, error) {
	w := &Store{
		Store: s,
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "cairn_object_request_duration_seconds",
			Help:    "Latency of requests to the object store, by operation; _count is the number of requests.",
			Buckets: latencyBuckets,
		}, []string{"op"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "cairn_object_errors_total",
			Help: "Requests to the object store that failed, by operation.",
		}, []string{"op"}),
		bytes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "cairn_object_bytes_total",
			Help: "Bytes sent to the object store (op put) and received from it (op get).",
		}, []string{"op"}),
	}
	for _, c := range []prometheus.Collector{w.latency, w.errors, w.bytes} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	for _, op := range storeOps {
		w.latency.WithLabelValues(op)
		w.errors.WithLabelValues(op)
	}
	w.bytes.WithLabelValues("put")
	w.bytes.WithLabelValues("get")
	return w, nil
}

// Unwrap returns the store this one wraps.
func (s *Store) Unwrap() object.Store { return s.Store }

func (s *Store) done(op string, start time.Time, err error) {
	s.latency.WithLabelValues(op).Observe(time.Since(start).Seconds())
	if err != nil {
		s.errors.WithLabelValues(op).Inc()
	}
}

func (s *Store) Put(ctx context.Context, key string, data []byte) error {
	start := time.Now()
	err := s.Store.Put(ctx, key, data)
	s.done("put", start, err)
	if err == nil {
		s.bytes.WithLabelValues("put").Add(float64(len(data)))
	}
	return err
}

func (s *Store) Get(ctx context.Context, key string, off, limit int64) ([]byte, error) {
	start := time.Now()
	data, err := s.Store.Get(ctx, key, off, limit)
	s.done("get", start, err)
	s.bytes.WithLabelValues("get").Add(float64(len(data)))
	return data, err
}

// storeInto is a Store over a store that implements object.GetterInto.
type storeInto struct{ *Store }

// GetInto reads through the wrapped store's GetInto; it counts as a get.
func (s storeInto) GetInto(ctx context.Context, key string, buf []byte) ([]byte, error) {
	start := time.Now()
	data, err := s.Store.Store.(object.GetterInto).GetInto(ctx, key, buf)
	s.done("get", start, err)
	s.bytes.WithLabelValues("get").Add(float64(len(data)))
	return data, err
}

func (s *Store) Head(ctx context.Context, key string) (object.Info, error) {
	start := time.Now()
	info, err := s.Store.Head(ctx, key)
	s.done("head", start, err)
	return info, err
}

func (s *Store) Delete(ctx context.Context, key string) error {
	start := time.Now()
	err := s.Store.Delete(ctx, key)
	s.done("delete", start, err)
	return err
}

func (s *Store) List(ctx context.Context, prefix, after string, limit int) ([]object.Info, error) {
	start := time.Now()
	infos, err := s.Store.List(ctx, prefix, after, limit)
	s.done("list", start, err)
	return infos, err
}

// Sync flushes the wrapped store when it defers its flushes
// (object.Syncer); otherwise there is nothing to do and nothing is
// counted.
func (s *Store) Sync(ctx context.Context) error {
	sy, ok := s.Store.(object.Syncer)
	if !ok {
		return nil
	}
	start := time.Now()
	err := sy.Sync(ctx)
	s.done("sync", start, err)
	return err
}
