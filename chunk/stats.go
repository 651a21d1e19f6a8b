package chunk

import (
	"sync/atomic"
	"time"
)

// Stats are counters since the Store was opened.
type Stats struct {
	Puts             int64 `json:"puts"` // block uploads
	PutErrors        int64 `json:"put_errors"`
	Gets             int64 `json:"gets"` // block downloads from the object store
	GetErrors        int64 `json:"get_errors"`
	Deletes          int64 `json:"deletes"`
	PutNanos         int64 `json:"put_nanos"`          // time spent in object Put
	GetNanos         int64 `json:"get_nanos"`          // time spent in object Get
	BytesUp          int64 `json:"bytes_up"`           // stored bytes (after compression) uploaded
	BytesDown        int64 `json:"bytes_down"`         // stored bytes downloaded
	MemHits          int64 `json:"mem_hits"`           // blocks found in the in-memory cache
	CacheHits        int64 `json:"cache_hits"`         // blocks found in the disk cache
	CacheMisses      int64 `json:"cache_misses"`       // blocks fetched from the object store
	Prefetches       int64 `json:"prefetches"`         // blocks fetched ahead of a sequential reader
	Corrupt          int64 `json:"corrupt"`            // blocks that failed their checksum
	CacheBytes       int64 `json:"cache_bytes"`        // bytes in the disk cache now
	CacheWriteErrors int64 `json:"cache_write_errors"` // failed writes to the disk cache
	BufferBytes      int64 `json:"buffer_bytes"`       // writer memory in use now
	Staged           int64 `json:"staged"`             // writeback blocks not uploaded yet
	StagedBytes      int64 `json:"staged_bytes"`       // their size
	Uploading        int64 `json:"uploading"`          // block uploads under way
}

type counters struct {
	puts, putErrors, gets, getErrors, deletes atomic.Int64
	putNanos, getNanos, bytesUp, bytesDown    atomic.Int64
	memHits, cacheHits, cacheMisses           atomic.Int64
	prefetches, corrupt, cacheWriteErrors     atomic.Int64
}

func (c *counters) put(n int, d time.Duration, err error) {
	c.puts.Add(1)
	c.putNanos.Add(int64(d))
	if err != nil {
		c.putErrors.Add(1)
		return
	}
	c.bytesUp.Add(int64(n))
}

func (c *counters) get(n int, d time.Duration, err error) {
	c.gets.Add(1)
	c.getNanos.Add(int64(d))
	if err != nil {
		c.getErrors.Add(1)
		return
	}
	c.bytesDown.Add(int64(n))
}

// Stats returns the counters now.
func (s *Store) Stats() Stats {
	c := &s.stats
	st := Stats{
		Puts: c.puts.Load(), PutErrors: c.putErrors.Load(),
		Gets: c.gets.Load(), GetErrors: c.getErrors.Load(),
		Deletes:  c.deletes.Load(),
		PutNanos: c.putNanos.Load(), GetNanos: c.getNanos.Load(),
		BytesUp: c.bytesUp.Load(), BytesDown: c.bytesDown.Load(),
		MemHits: c.memHits.Load(), CacheHits: c.cacheHits.Load(), CacheMisses: c.cacheMisses.Load(),
		Prefetches: c.prefetches.Load(), Corrupt: c.corrupt.Load(),
		CacheWriteErrors: c.cacheWriteErrors.Load(),
		BufferBytes:      s.budget.inUse(),
		Uploading:        s.budget.uploading(),
	}
	if s.disk != nil {
		st.CacheBytes = s.disk.size()
	}
	if s.staging != nil {
		st.Staged = s.staging.count()
		st.StagedBytes = s.staging.bytes()
	}
	return st
}
