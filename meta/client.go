package meta

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// ClientConfig tunes the shared client layer that sits above an Engine.
type ClientConfig struct {
	// AttrTimeout, EntryTimeout and DirEntryTimeout bound how long an
	// attribute, a file's directory entry and a directory's entry may be
	// served from this client's cache. Zero disables that cache.
	AttrTimeout     time.Duration
	EntryTimeout    time.Duration
	DirEntryTimeout time.Duration
	// CheckPermission makes Lookup, Readdir and Access check permission
	// bits; off when the kernel checks them itself (default_permissions).
	CheckPermission bool
	// InodeBatch and SliceBatch are how many ids one NextInodes or
	// NextSlices call reserves (default 100 and 200).
	InodeBatch uint64
	SliceBatch uint64
	// Heartbeat is how often the session proves it is alive (default 10s);
	// sessions silent for SessionTimeout (default 5m) are closed by any
	// live client.
	Heartbeat      time.Duration
	SessionTimeout time.Duration
	// Session describes this client in ListSessions.
	Session SessionInfo
	// NoDirStats keeps no directory statistics and enforces no quotas,
	// for benchmarks that measure what they cost (dirstats.go).
	NoDirStats bool
	// OpenEngine opens the metadata engine at url, with the credentials of
	// this client's environment: how the client reaches the engine an
	// online migration moves the volume to (client_migration.go). Without
	// it the client does not follow migrations, and a migration refuses
	// to switch while its session lives, as for an older build.
	OpenEngine func(ctx context.Context, url string) (Engine, error)
}

func (c *ClientConfig) defaults() {
	if c.InodeBatch == 0 {
		c.InodeBatch = 100
	}
	if c.SliceBatch == 0 {
		c.SliceBatch = 200
	}
	if c.Heartbeat == 0 {
		c.Heartbeat = 10 * time.Second
	}
	if c.SessionTimeout == 0 {
		c.SessionTimeout = 5 * time.Minute
	}
}

// Client is what one mounted process uses to reach the metadata: an Engine
// plus the parts every engine shares — attribute and entry caches, batched
// inode and slice ids, the session and its heartbeat, permission checks for
// reads, and the bookkeeping that frees an unlinked file on its last local
// close. It holds no engine-specific code.
//
// The caches only ever serve what this client wrote itself or read within
// the configured timeouts; another client's change becomes visible when an
// entry expires, and always on open (close-to-open), which reads fresh.
//
// All methods are safe for concurrent use.
type Client struct {
	eng     Engine   // tracker behind Checked's argument checks
	tracker *Tracker // the engine a migration tracks, pauses and swaps
	cfg     ClientConfig
	// followed is set once the client moved to the engine an online
	// migration switched its volume to (client_migration.go).
	followed atomic.Bool

	attrs   *attrCache
	entries *entryCache
	inodes  *idPool
	slices  *idPool
	metrics *Metrics

	locks *heldLocks

	mu      sync.Mutex
	sid     uint64
	open    map[Ino]*openInode
	links   map[Ino]string // symlink targets never change
	usage   Usage
	usageAt time.Time

	trash trashState
	stats *dirStats
	quota *quotaState

	info       SessionInfo // as registered, again on a migration's DST
	stop       chan struct{}
	done       chan struct{}
	statsDone  chan struct{}
	followDone chan struct{}
	followNow  chan struct{} // FollowNow: read the migration record at once
}

// NewClient wraps eng in a Tracker, so that the client can follow an
// online migration (client_migration.go), behind Checked's argument
// checks whoever opened it. Call Start before using it and Close at the
// end.
func NewClient(eng Engine, cfg ClientConfig) *Client {
	cfg.defaults()
	if ch, ok := eng.(checked); ok {
		eng = ch.Engine // checked once, above the Tracker
	}
	_, hasStats := Capability[DirStatStore](eng)
	_, hasQuotas := Capability[QuotaStore](eng)
	c := &Client{
		cfg:     cfg,
		locks:   newHeldLocks(),
		attrs:   newAttrCache(),
		entries: newEntryCache(),
		metrics: NewMetrics(),
		open:    make(map[Ino]*openInode),
		links:   make(map[Ino]string),

		followNow: make(chan struct{}, 1),
	}
	c.tracker = NewTracker(sessionRecorder{eng, c})
	c.eng = Checked(c.tracker)
	eng = c.eng
	c.stats = newDirStats(eng, cfg.NoDirStats || !hasStats)
	c.quota = newQuotaState(eng, c.stats)
	if !hasQuotas {
		c.quota.store = nil
	}
	c.inodes = &idPool{batch: cfg.InodeBatch, fetch: func(ctx context.Context, n uint64) (uint64, error) {
		defer c.observe("next_inodes", time.Now())
		first, err := eng.NextInodes(ctx, n)
		return uint64(first), err
	}}
	c.slices = &idPool{batch: cfg.SliceBatch, fetch: func(ctx context.Context, n uint64) (uint64, error) {
		defer c.observe("next_slices", time.Now())
		return eng.NextSlices(ctx, n)
	}}
	return c
}

// Engine returns the wrapped engine, for the operations that need no cache.
func (c *Client) Engine() Engine { return c.eng }

// Config returns the configuration the client runs with.
func (c *Client) Config() ClientConfig { return c.cfg }

// Metrics returns the latency of every engine call this client made.
func (c *Client) Metrics() *Metrics { return c.metrics }

func (c *Client) observe(op string, start time.Time) {
	c.metrics.Observe("meta."+op, time.Since(start))
}

// Usage reports the volume's usage, at most a second old.
func (c *Client) Usage(ctx context.Context) (Usage, error) {
	c.mu.Lock()
	if time.Since(c.usageAt) < time.Second {
		u := c.usage
		c.mu.Unlock()
		return u, nil
	}
	c.mu.Unlock()
	defer c.observe("usage", time.Now())
	u, err := c.eng.Usage(ctx)
	if err != nil {
		return Usage{}, err
	}
	c.mu.Lock()
	c.usage, c.usageAt = u, time.Now()
	c.mu.Unlock()
	return u, nil
}

// clientCapability finds capability T of the client's engine as
// Capability does, but only when the engine behind the Tracker has it:
// the Tracker implements every optional interface it tracks, and answers
// ErrNotSupported for those its engine lacks.
func clientCapability[T any](c *Client) (T, bool) {
	if _, ok := Capability[T](c.tracker.Unwrap()); !ok {
		var none T
		return none, false
	}
	return Capability[T](c.eng)
}
