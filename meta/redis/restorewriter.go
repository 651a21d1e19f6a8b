package redis

import (
	"context"
	"sync"

	goredis "github.com/redis/go-redis/v9"
)

// restoreWriter sends a load's writes in pipelines and in as few commands
// as it can: Redis spends more per command than per key, so plain values
// (attributes, symlink targets) gather into one MSET, consecutive entries
// of a directory into one ZADD, and slice references into one HSET.
// Commands that name a key of their own (a chunk's list, an inode's chunk
// set) go as they come. Nothing is visible in order: the caller flushes
// before what must come last.
//
// A full pipeline goes to one of restoreSenders goroutines, each on a
// connection of its own, while the caller fills the next: the server
// works on one pipeline while the client encodes the next and reads the
// replies of another, so that a load keeps both cores of a small machine
// busy. Pipelines in flight at once may run in any order; flush waits for
// all of them, so what is written after a flush comes after what came
// before it. close must be called once the writer is done with.
type restoreWriter struct {
	ctx      context.Context
	rdb      *goredis.Client
	pipe     goredis.Pipeliner
	commands int // in pipe, not yet sent
	words    int // arguments in pipe, not yet sent
	values   []any
	dir      string
	entries  []any
	refsKey  string
	refs     []any

	sending  chan goredis.Pipeliner
	inFlight sync.WaitGroup // pipelines sent and not yet answered
	senders  sync.WaitGroup
	mu       sync.Mutex
	failed   error // the first error of a pipeline sent
}

const (
	// groupWords bounds one gathered command's arguments; pipeWords
	// and pipeCommands bound what one pipeline carries.
	groupWords   = 1024
	pipeWords    = 64 << 10
	pipeCommands = 2048
	// restoreSenders is how many pipelines may be in flight at once.
	restoreSenders = 2
)

func newRestoreWriter(ctx context.Context, rdb *goredis.Client, refsKey string) *restoreWriter {
	w := &restoreWriter{ctx: ctx, rdb: rdb, pipe: rdb.Pipeline(), refsKey: refsKey, sending: make(chan goredis.Pipeliner)}
	w.senders.Add(restoreSenders)
	for range restoreSenders {
		go w.sender()
	}
	return w
}

// sender executes the pipelines handed to it until close.
func (w *restoreWriter) sender() {
	defer w.senders.Done()
	for pipe := range w.sending {
		if _, err := pipe.Exec(w.ctx); err != nil {
			w.mu.Lock()
			if w.failed == nil {
				w.failed = err
			}
			w.mu.Unlock()
		}
		w.inFlight.Done()
	}
}

// err is the first error of a pipeline already answered.
func (w *restoreWriter) err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.failed
}

// close waits for the pipelines in flight and ends the senders; nothing
// the writer was given reaches the server after it returns.
func (w *restoreWriter) close() {
	close(w.sending)
	w.senders.Wait()
}

// set sets a plain value.
func (w *restoreWriter) set(key string, value any) error {
	w.values = append(w.values, key, value)
	if len(w.values) >= groupWords {
		return w.sendValues()
	}
	return nil
}

// entry adds member to the sorted set of directory key, score 0.
func (w *restoreWriter) entry(key string, member []byte) error {
	if key != w.dir {
		if err := w.sendEntries(); err != nil {
			return err
		}
		w.dir = key
	}
	w.entries = append(w.entries, 0, member)
	if len(w.entries) >= groupWords {
		return w.sendEntries()
	}
	return nil
}

// ref sets slice id's reference count; a later call for the same id wins.
func (w *restoreWriter) ref(id string, count uint64) error {
	w.refs = append(w.refs, id, count)
	if len(w.refs) >= groupWords {
		return w.sendRefs()
	}
	return nil
}

// do queues a command of its own.
func (w *restoreWriter) do(words int, queue func(p goredis.Pipeliner)) error {
	queue(w.pipe)
	return w.queued(words)
}

func (w *restoreWriter) queued(words int) error {
	w.commands++
	w.words += words
	if w.commands >= pipeCommands || w.words >= pipeWords {
		return w.send()
	}
	return nil
}

func (w *restoreWriter) sendValues() error {
	if len(w.values) == 0 {
		return nil
	}
	w.pipe.MSet(w.ctx, w.values...)
	n := len(w.values)
	w.values = make([]any, 0, groupWords)
	return w.queued(n)
}

func (w *restoreWriter) sendEntries() error {
	if len(w.entries) == 0 {
		return nil
	}
	w.pipe.Do(w.ctx, append([]any{"ZADD", w.dir}, w.entries...)...)
	n := len(w.entries)
	w.entries = make([]any, 0, groupWords)
	return w.queued(n)
}

func (w *restoreWriter) sendRefs() error {
	if len(w.refs) == 0 {
		return nil
	}
	w.pipe.HSet(w.ctx, w.refsKey, w.refs...)
	n := len(w.refs)
	w.refs = make([]any, 0, groupWords)
	return w.queued(n)
}

// send hands the pipeline to a sender, once one is free, and starts a
// new one. It returns the error of a pipeline sent before, if any failed.
func (w *restoreWriter) send() error {
	if err := w.err(); err != nil {
		return err
	}
	if w.commands == 0 {
		return nil
	}
	w.commands, w.words = 0, 0
	w.inFlight.Add(1)
	select {
	case w.sending <- w.pipe:
	case <-w.ctx.Done():
		w.inFlight.Done()
		return w.ctx.Err()
	}
	w.pipe = w.rdb.Pipeline()
	return nil
}

// flush sends everything written so far, gathered or not, and waits for
// the server to have done it.
func (w *restoreWriter) flush() error {
	for _, send := range []func() error{w.sendValues, w.sendEntries, w.sendRefs, w.send} {
		if err := send(); err != nil {
			return err
		}
	}
	w.inFlight.Wait()
	return w.err()
}
