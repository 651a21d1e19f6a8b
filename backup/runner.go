package backup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"cairn/dump"
	"cairn/meta"
	"cairn/object"
)

// Config says what a Runner backs up, where, and how often.
type Config struct {
	// Interval between backups; it must be positive.
	Interval time.Duration
	// Dumper reads the volume; Sessions lists the volume's sessions and
	// Session is this client's (0: not registered, no backup).
	Dumper   meta.Dumper
	Sessions func(ctx context.Context) ([]meta.SessionInfo, error)
	Session  func() uint64
	// Store is the volume's object store.
	Store object.Store
	// Fresh is how old a session's heartbeat may be for it to count as
	// live (default one minute).
	Fresh time.Duration
	// TempDir holds the dump while it is written ("": the system's).
	TempDir string
	// Now is the clock (default time.Now); tests set it.
	Now func() time.Time
}

// Runner writes backups in the background until Stop.
type Runner struct {
	cfg     Config
	started time.Time
	cancel  context.CancelFunc
	done    chan struct{}
}

// Start starts writing backups every cfg.Interval. It looks at once and
// then every interval, or every minute when the interval is longer, and
// writes when the newest backup in the store is older than nine tenths of
// the interval: a volume without backups gets one as it is mounted, and
// clients mounted for less than the interval still write their share.
func Start(cfg Config) *Runner {
	r := newRunner(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	go r.loop(ctx)
	return r
}

func newRunner(cfg Config) *Runner {
	if cfg.Fresh == 0 {
		cfg.Fresh = time.Minute
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Runner{cfg: cfg, done: make(chan struct{}), started: cfg.Now()}
}

// Stop ends the background work, abandoning a backup being written (its
// object is not written, or is whole), and waits for it.
func (r *Runner) Stop() {
	r.cancel()
	<-r.done
}

func (r *Runner) loop(ctx context.Context) {
	defer close(r.done)
	t := time.NewTicker(min(r.cfg.Interval, time.Minute))
	defer t.Stop()
	for first := true; ; first = false {
		if !first {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
		key, err := r.Turn(ctx)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			slog.Warn("metadata backup failed; trying again at the next interval", "err", err)
		case key != "":
			slog.Info("metadata backup written", "key", key, "session", r.cfg.Session())
		}
	}
}

// Turn writes a backup if none is recent and this client is the writer,
// or if none was written for three intervals, three minutes at least
// (since the newest backup or Start), whoever the writer is; then it prunes old ones. It returns the
// key written ("" when it was not this client's turn).
func (r *Runner) Turn(ctx context.Context) (string, error) {
	own := r.cfg.Session()
	if own == 0 {
		return "", nil
	}
	sessions, err := r.cfg.Sessions(ctx)
	if err != nil {
		return "", fmt.Errorf("list the sessions: %w", err)
	}
	now := r.cfg.Now()
	writer := IsWriter(sessions, own, now, r.cfg.Fresh)
	backups, err := r.list(ctx)
	if err != nil {
		return "", err
	}
	// The newest backup's age counts from its upload (the store's time),
	// not from its name, which is rounded down to the second.
	last, recent := r.started, false
	if len(backups) > 0 {
		newest := backups[len(backups)-1].written
		last = maxTime(last, newest)
		recent = now.Sub(newest) < r.cfg.Interval*9/10
	}
	if recent {
		return "", nil
	}
	// The writer may be a client with backups off, or one whose backups
	// fail: after three intervals (three minutes at least) without a
	// backup, any client writes.
	if !writer && now.Sub(last) <= 3*max(r.cfg.Interval, time.Minute) {
		return "", nil
	}
	key := KeyFor(now)
	if err := r.write(ctx, key); err != nil {
		return "", err
	}
	backups = append(backups, stored{key: key, taken: now, written: now})
	return key, r.prune(ctx, now, backups)
}

// stored is a backup found in the store.
type stored struct {
	key   string
	taken time.Time
	// written is when the store says the object was written, or taken.
	written time.Time
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// list finds the backups in the store, oldest first.
func (r *Runner) list(ctx context.Context) ([]stored, error) {
	var out []stored
	after := ""
	for {
		infos, err := r.cfg.Store.List(ctx, keyStart, after, 1000)
		if err != nil {
			return nil, fmt.Errorf("list the backups in %s: %w", r.cfg.Store, err)
		}
		for _, info := range infos {
			if t, ok := ParseKey(info.Key); ok {
				// The store's time is only believed within an hour
				// after the name's: clocks differ.
				written := t
				if info.ModTime.After(t) && info.ModTime.Before(t.Add(time.Hour)) {
					written = info.ModTime
				}
				out = append(out, stored{key: info.Key, taken: t, written: written})
			}
		}
		if len(infos) < 1000 {
			return out, nil
		}
		after = infos[len(infos)-1].Key
	}
}

func (r *Runner) prune(ctx context.Context, now time.Time, backups []stored) error {
	taken := make([]time.Time, len(backups))
	for i, b := range backups {
		taken[i] = b.taken
	}
	var errs []error
	for i, keep := range Keep(now, taken) {
		if keep {
			continue
		}
		if err := r.cfg.Store.Delete(ctx, backups[i].key); err != nil {
			errs = append(errs, fmt.Errorf("delete the old backup %s: %w", backups[i].key, err))
		}
	}
	return errors.Join(errs...)
}

// write dumps the volume to a temporary file on a low-priority thread,
// then uploads it under key, streamed where the store allows.
func (r *Runner) write(ctx context.Context, key string) error {
	tmp, err := os.CreateTemp(r.cfg.TempDir, "cairn-backup-*")
	if err != nil {
		return fmt.Errorf("create a temporary file for the backup: %w", err)
	}
	defer tmp.Close()
	os.Remove(tmp.Name()) // the open file is all that is needed
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		err = lowPriority(func() error { return r.dumpTo(ctx, tmp) })
	}()
	wg.Wait()
	if err != nil {
		return err
	}
	size, err := tmp.Seek(0, io.SeekCurrent)
	if err != nil {
		return fmt.Errorf("read back the backup: %w", err)
	}
	if err := object.PutFrom(ctx, r.cfg.Store, key, tmp, size); err != nil {
		return fmt.Errorf("upload the backup %s: %w", key, err)
	}
	return nil
}

func (r *Runner) dumpTo(ctx context.Context, f *os.File) error {
	w, err := dump.NewWriter(f, dump.Options{Binary: true, Compression: dump.CompressionFor(keySuffix)})
	if err != nil {
		return err
	}
	if err := r.cfg.Dumper.Dump(ctx, w); err != nil {
		w.Abort()
		return fmt.Errorf("dump the metadata: %w", err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("write the backup: %w", err)
	}
	return nil
}

// lowPriority runs f on an operating-system thread of its own at the
// lowest scheduling priority. The thread is never handed back to other
// goroutines: the caller must run lowPriority in a goroutine that ends
// when it returns, so that the thread ends with it.
func lowPriority(f func() error) error {
	runtime.LockOSThread()
	if err := unix.Setpriority(unix.PRIO_PROCESS, unix.Gettid(), 19); err != nil {
		slog.Debug("lower the priority of the backup thread", "err", err)
	}
	return f()
}
