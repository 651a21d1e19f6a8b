// Package metrics exports what a mount does to Prometheus: wrappers that
// instrument a meta.Engine and an object.Store (count, latency and errors
// of every call, bytes moved), a collector over the counters the VFS and
// the block store already keep (FUSE requests, cache, buffers, uploads,
// the session, the volume's usage), and the HTTP endpoint that serves
// them.
//
// Every metric is named cairn_*; docs/grafana/cairn.json charts them and
// the README lists them. The package holds no global state: each mount
// makes its own prometheus.Registry.
package metrics
