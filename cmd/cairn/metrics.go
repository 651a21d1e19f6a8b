package main

import (
	"net"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"cairn/meta"
	"cairn/metrics"
	"cairn/object"
	"cairn/volume"
)

// metricsAddress is the --metrics flag of 'cairn mount': where the mount
// serves Prometheus metrics. "off" or "" turns them off. Explicit records
// whether the user gave it: only the default moves on to the next free
// port when its own is taken.
type metricsAddress struct {
	addr     string
	explicit bool
}

func (m *metricsAddress) String() string { return m.addr }
func (m *metricsAddress) Type() string   { return "address" }

func (m *metricsAddress) Set(s string) error {
	m.explicit = true
	if s == "" || s == "off" {
		m.addr = ""
		return nil
	}
	if err := metrics.CheckAddress(s); err != nil {
		return err
	}
	m.addr = s
	return nil
}

// mountMetrics are the metrics of one mount: a registry of its own, the
// listener opened before the volume (so that a taken address fails
// before anything is mounted), and the server once the volume is open.
type mountMetrics struct {
	registry *prometheus.Registry
	listener net.Listener
	server   *metrics.Server
}

// openMetrics opens the listener of a; nil when metrics are off.
func openMetrics(a metricsAddress) (*mountMetrics, error) {
	if a.addr == "" {
		return nil, nil
	}
	ln, err := metrics.Listen(a.addr, a.explicit)
	if err != nil {
		return nil, err
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return &mountMetrics{registry: reg, listener: ln}, nil
}

// instrument makes opts wrap the engine and the object store with
// counting wrappers.
func (m *mountMetrics) instrument(opts *volume.Options) {
	if m == nil {
		return
	}
	opts.WrapEngine = func(e meta.Engine) (meta.Engine, error) { return metrics.NewEngine(e, m.registry) }
	opts.WrapStore = func(s object.Store) (object.Store, error) { return metrics.NewStore(s, m.registry) }
}

// serve adds the mount's own counters and starts serving; it returns the
// address, or "" when metrics are off.
func (m *mountMetrics) serve(vol *volume.Volume) (string, error) {
	if m == nil {
		return "", nil
	}
	if err := m.registry.Register(metrics.NewMount(vol.VFS, vol.Blocks, vol.Client, vol.Format)); err != nil {
		return "", err
	}
	m.server = metrics.Serve(m.listener, m.registry)
	return m.server.Address(), nil
}

// close stops serving, or releases the listener when serving never
// started.
func (m *mountMetrics) close() {
	switch {
	case m == nil:
	case m.server != nil:
		m.server.Close()
	default:
		m.listener.Close()
	}
}
