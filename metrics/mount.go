package metrics

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sys/unix"

	"cairn/chunk"
	"cairn/meta"
	"cairn/vfs"
)

// Mount is a prometheus.Collector over the counters a mount keeps anyway
// — the FUSE requests the VFS records for its .stats file, the block
// store's cache and upload counters, the engine's round trips, the
// session and the volume's usage — read at each scrape, so nothing is
// counted twice.
type Mount struct {
	vfs    *vfs.VFS
	blocks *chunk.Store
	client *meta.Client
	format meta.Format
}

var _ prometheus.Collector = (*Mount)(nil)

// NewMount collects the counters of the mount of format served by v over
// blocks and client.
func NewMount(v *vfs.VFS, blocks *chunk.Store, client *meta.Client, format meta.Format) *Mount {
	return &Mount{vfs: v, blocks: blocks, client: client, format: format}
}

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(name, help, labels, nil)
}

var (
	fuseLatencyDesc = desc("cairn_fuse_request_duration_seconds", "Latency of FUSE requests from arrival to reply, by operation; _count is the number of requests.", "op")
	fuseErrorsDesc  = desc("cairn_fuse_errors_total", "FUSE requests answered with an error, by operation and errno name.", "op", "error")
	fuseReadDesc    = desc("cairn_fuse_read_bytes_total", "Bytes read from files through the mount.")
	fuseWrittenDesc = desc("cairn_fuse_written_bytes_total", "Bytes written to files through the mount.")

	roundTripsDesc = desc("cairn_meta_round_trips_total", "Requests sent to the metadata database server.")
	retriesDesc    = desc("cairn_meta_retries_total", "Metadata transactions re-run after a conflict.")

	cacheHitsDesc   = desc("cairn_cache_hits_total", "Blocks read from a cache, by cache (memory or disk).", "cache")
	cacheMissesDesc = desc("cairn_cache_misses_total", "Blocks that had to be fetched from the object store.")
	cacheBytesDesc  = desc("cairn_cache_bytes", "Bytes held in the disk cache.")
	prefetchDesc    = desc("cairn_prefetches_total", "Blocks fetched ahead of a sequential reader.")
	corruptDesc     = desc("cairn_corrupt_blocks_total", "Blocks that failed their checksum when read.")

	bufferedDesc     = desc("cairn_buffered_bytes", "Bytes written through the mount and not committed to the volume yet.")
	bufferMemoryDesc = desc("cairn_buffer_memory_bytes", "Memory the write buffers hold now (--buffer-size bounds it).")
	stagedBlocksDesc = desc("cairn_staged_blocks", "Blocks staged on local disk by --writeback and not uploaded yet.")
	stagedBytesDesc  = desc("cairn_staged_bytes", "Bytes of the staged blocks.")
	uploadsDesc      = desc("cairn_uploads_pending", "Blocks written and not in the object store yet: uploads under way plus staged blocks.")

	sessionDesc = desc("cairn_session_info", "The mount's session: always 1, with its session id and the volume's name as labels.", "session", "volume")

	usedBytesDesc  = desc("cairn_volume_used_bytes", "Space the volume's files take (each file's length rounded up to 4 KiB).")
	usedInodesDesc = desc("cairn_volume_used_inodes", "Files and directories in the volume.")
	capacityDesc   = desc("cairn_volume_capacity_bytes", "The volume's space limit (0: unlimited).")
	inodeLimitDesc = desc("cairn_volume_inodes_limit", "The volume's limit on files and directories (0: unlimited).")
)

var mountDescs = []*prometheus.Desc{
	fuseLatencyDesc, fuseErrorsDesc, fuseReadDesc, fuseWrittenDesc,
	roundTripsDesc, retriesDesc,
	cacheHitsDesc, cacheMissesDesc, cacheBytesDesc, prefetchDesc, corruptDesc,
	bufferedDesc, bufferMemoryDesc, stagedBlocksDesc, stagedBytesDesc, uploadsDesc,
	sessionDesc, usedBytesDesc, usedInodesDesc, capacityDesc, inodeLimitDesc,
}

// Describe sends the description of every metric Collect sends.
func (m *Mount) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range mountDescs {
		ch <- d
	}
}

// Collect reads the mount's counters now.
func (m *Mount) Collect(ch chan<- prometheus.Metric) {
	m.collectRequests(ch)
	counter := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
	}
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter(fuseReadDesc, float64(m.vfs.ReadBytes()))
	counter(fuseWrittenDesc, float64(m.vfs.WrittenBytes()))

	es := m.client.Engine().Stats()
	counter(roundTripsDesc, float64(es.RoundTrips))
	counter(retriesDesc, float64(es.Retries))

	bs := m.blocks.Stats()
	counter(cacheHitsDesc, float64(bs.MemHits), "memory")
	counter(cacheHitsDesc, float64(bs.CacheHits), "disk")
	counter(cacheMissesDesc, float64(bs.CacheMisses))
	gauge(cacheBytesDesc, float64(bs.CacheBytes))
	counter(prefetchDesc, float64(bs.Prefetches))
	counter(corruptDesc, float64(bs.Corrupt))

	gauge(bufferedDesc, float64(m.vfs.BufferedBytes()))
	gauge(bufferMemoryDesc, float64(bs.BufferBytes))
	gauge(stagedBlocksDesc, float64(bs.Staged))
	gauge(stagedBytesDesc, float64(bs.StagedBytes))
	gauge(uploadsDesc, float64(bs.Uploading+bs.Staged))

	gauge(sessionDesc, 1, strconv.FormatUint(m.client.Session(), 10), m.format.Name)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if u, err := m.client.Usage(ctx); err == nil {
		gauge(usedBytesDesc, float64(u.Space))
		gauge(usedInodesDesc, float64(u.Inodes))
	} else {
		ch <- prometheus.NewInvalidMetric(usedBytesDesc, err)
	}
	gauge(capacityDesc, float64(m.format.Capacity))
	gauge(inodeLimitDesc, float64(m.format.Inodes))
}

// collectRequests turns the VFS's record of FUSE requests into
// histograms, and its failures into counters.
func (m *Mount) collectRequests(ch chan<- prometheus.Metric) {
	for name, h := range m.vfs.Requests().Histograms() {
		op, ok := strings.CutPrefix(name, "fuse.")
		if !ok {
			continue
		}
		ch <- prometheus.MustNewConstHistogram(fuseLatencyDesc, h.Count, float64(h.TotalNs)/1e9, cumulativeBuckets(h), op)
	}
	for e, n := range m.vfs.RequestErrors() {
		name := unix.ErrnoName(e.Errno)
		if name == "" {
			name = "errno " + strconv.Itoa(int(e.Errno))
		}
		ch <- prometheus.MustNewConstMetric(fuseErrorsDesc, prometheus.CounterValue, float64(n), e.Op, name)
	}
}

// cumulativeBuckets maps the power-of-two microsecond buckets of h onto
// latencyBuckets: the count at bound 2^k µs is that of buckets 0..k.
func cumulativeBuckets(h meta.Histogram) map[float64]uint64 {
	out := make(map[float64]uint64, len(latencyBuckets))
	var below uint64
	for i, n := range h.Buckets {
		below += n
		if i >= latencyFirstExponent && i <= latencyLastExponent && (i-latencyFirstExponent)%2 == 0 {
			out[float64(uint64(1)<<i)/1e6] = below
		}
	}
	return out
}
