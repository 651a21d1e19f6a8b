package redis

import (
	"context"
	"strconv"
	"sync"

	goredis "github.com/redis/go-redis/v9"

	"cairn/meta"
)

// restoreWriter sends a load's writes in pipelines and in as few commands
// as it can: Redis spends more per command than per key, so plain values
// (attributes, symlink targets) gather into one MSET, consecutive entries
// of a directory into one ZADD, and slice references into one HSET.
// Commands that name a key of their own (a chunk's list, an inode's chunk
// set) go as they come. Nothing is visible in order: the caller flushes
// before what must come last.
//
// The caller writes each argument's bytes into the writer's text (key,
// text, number, appended) and names it by the span it got back; a
// pipeline's arguments thus cost one buffer, not an allocation each,
// and become go-redis commands only on the sender, in one string.
//
// A full pipeline goes to one of restoreSenders goroutines, each on a
// connection of its own, while the caller fills the next: the server
// works on one pipeline while the client encodes the next and reads the
// replies of another, so that a load keeps both cores of a small machine
// busy. Pipelines in flight at once may run in any order; flush waits for
// all of them, so what is written after a flush comes after what came
// before it. close must be called once the writer is done with.
type restoreWriter struct {
	ctx    context.Context
	rdb    *goredis.Client
	prefix string
	batch  *restoreBatch // being filled

	values  []span // MSET key, value, key, value...
	dir     uint64 // the directory whose entries are gathered
	dirKey  span
	entries []span // ZADD score, member, score, member...
	refs    []span // HSET field, value, field, value...

	free     chan *restoreBatch
	sending  chan *restoreBatch
	inFlight sync.WaitGroup // batches sent and not yet answered
	senders  sync.WaitGroup
	mu       sync.Mutex
	failed   error // the first error of a pipeline sent
}

// span is where one argument lies in its batch's text.
type span struct{ start, end int }

// restoreBatch is one pipeline's commands before they become go-redis
// commands: their arguments' bytes, one after another in text.
type restoreBatch struct {
	text     []byte
	args     []span // every command's arguments, command after command
	commands []restoreCommand
	zero     span // "0", the score of every directory entry, once written
}

type restoreCommand struct {
	name string
	args int // how many of the batch's args are this command's
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

func newRestoreWriter(ctx context.Context, rdb *goredis.Client, prefix string) *restoreWriter {
	w := &restoreWriter{ctx: ctx, rdb: rdb, prefix: prefix, sending: make(chan *restoreBatch),
		free: make(chan *restoreBatch, restoreSenders+1)}
	for range restoreSenders {
		w.free <- &restoreBatch{}
	}
	w.batch = &restoreBatch{}
	w.senders.Add(restoreSenders)
	for range restoreSenders {
		go w.sender()
	}
	return w
}

// sender turns the batches handed to it into pipelines and executes them
// until close.
func (w *restoreWriter) sender() {
	defer w.senders.Done()
	for b := range w.sending {
		pipe := b.pipeline(w.ctx, w.rdb)
		b.text, b.args, b.commands, b.zero = b.text[:0], b.args[:0], b.commands[:0], span{}
		w.free <- b
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

// pipeline queues b's commands on a new pipeline. The arguments are
// pointers into one copy of b's text, which go-redis writes as they are.
func (b *restoreBatch) pipeline(ctx context.Context, rdb *goredis.Client) goredis.Pipeliner {
	pipe := rdb.Pipeline()
	text := string(b.text)
	values := make([]string, len(b.args))
	args := make([]any, len(b.args)+len(b.commands))
	next, word := 0, 0
	for _, c := range b.commands {
		first := next
		args[next] = c.name
		next++
		for range c.args {
			s := b.args[word]
			values[word] = text[s.start:s.end]
			args[next] = &values[word]
			next, word = next+1, word+1
		}
		pipe.Do(ctx, args[first:next]...)
	}
	return pipe
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

// appended is an argument of the bytes add appends to the text.
func (w *restoreWriter) appended(add func(out []byte) []byte) span {
	start := len(w.batch.text)
	w.batch.text = add(w.batch.text)
	return span{start, len(w.batch.text)}
}

// text is an argument of the bytes of s.
func (w *restoreWriter) text(s string) span {
	return w.appended(func(out []byte) []byte { return append(out, s...) })
}

// number is an argument of n in decimal.
func (w *restoreWriter) number(n uint64) span {
	return w.appended(func(out []byte) []byte { return strconv.AppendUint(out, n, 10) })
}

// key is the argument Engine.key(kind, n) names.
func (w *restoreWriter) key(kind string, n uint64) span {
	return w.appended(func(out []byte) []byte { return appendKey(out, w.prefix, kind, n) })
}

// named is the argument of the volume's key prefix followed by suffix
// (":usage", ":refs"...).
func (w *restoreWriter) named(suffix string) span {
	return w.appended(func(out []byte) []byte { return append(append(out, w.prefix...), suffix...) })
}

// chunkKey is the argument Engine.chunkKey(ino, idx) names.
func (w *restoreWriter) chunkKey(ino meta.Ino, idx uint32) span {
	return w.appended(func(out []byte) []byte { return appendChunkKey(out, w.prefix, ino, idx) })
}

// set sets a plain value; key and value must be the last arguments
// written.
func (w *restoreWriter) set(key, value span) error {
	w.values = append(w.values, key, value)
	if len(w.values) >= groupWords {
		w.queueValues()
		return w.queued()
	}
	return nil
}

// entry adds the entry name → child of type t to the sorted set of
// directory dir, score 0.
func (w *restoreWriter) entry(dir uint64, name string, t meta.FileType, child meta.Ino) error {
	if dir != w.dir || len(w.entries) == 0 {
		w.queueEntries()
		if err := w.queued(); err != nil {
			return err
		}
		w.dir, w.dirKey = dir, w.key("d", dir)
	}
	b := w.batch
	if b.zero == (span{}) {
		b.zero = w.text("0")
	}
	member := w.appended(func(out []byte) []byte { return appendEntry(out, name, t, meta.Ino(child)) })
	w.entries = append(w.entries, b.zero, member)
	if len(w.entries) >= groupWords {
		w.queueEntries()
		return w.queued()
	}
	return nil
}

// ref sets slice id's reference count; a later call for the same id wins.
func (w *restoreWriter) ref(id, count uint64) error {
	w.refs = append(w.refs, w.number(id), w.number(count))
	if len(w.refs) >= groupWords {
		w.queueRefs()
		return w.queued()
	}
	return nil
}

// do queues a command of its own; args must be the last arguments
// written.
func (w *restoreWriter) do(name string, args ...span) error {
	w.queue(name, span{}, args)
	return w.queued()
}

// queue adds a command to the batch, without sending it: name, then key
// unless it is the zero span, then args.
func (w *restoreWriter) queue(name string, key span, args []span) {
	b := w.batch
	n := len(args)
	if key != (span{}) {
		b.args = append(b.args, key)
		n++
	}
	b.commands = append(b.commands, restoreCommand{name: name, args: n})
	b.args = append(b.args, args...)
}

// queued sends the batch if it is full.
func (w *restoreWriter) queued() error {
	if len(w.batch.commands) >= pipeCommands || len(w.batch.args) >= pipeWords {
		return w.send()
	}
	return nil
}

func (w *restoreWriter) queueValues() {
	if len(w.values) > 0 {
		w.queue("MSET", span{}, w.values)
		w.values = w.values[:0]
	}
}

func (w *restoreWriter) queueEntries() {
	if len(w.entries) > 0 {
		w.queue("ZADD", w.dirKey, w.entries)
		w.entries = w.entries[:0]
	}
}

func (w *restoreWriter) queueRefs() {
	if len(w.refs) > 0 {
		key := w.named(":refs")
		w.queue("HSET", key, w.refs)
		w.refs = w.refs[:0]
	}
}

// send queues the commands being gathered (their arguments lie in this
// batch's text), hands the batch to a sender, once one is free, and
// starts a new one. It returns the error of a pipeline sent before, if
// any failed.
func (w *restoreWriter) send() error {
	if err := w.err(); err != nil {
		return err
	}
	w.queueValues()
	w.queueEntries()
	w.queueRefs()
	if len(w.batch.commands) == 0 {
		return nil
	}
	w.inFlight.Add(1)
	select {
	case w.sending <- w.batch:
	case <-w.ctx.Done():
		w.inFlight.Done()
		return w.ctx.Err()
	}
	select {
	case w.batch = <-w.free:
	case <-w.ctx.Done():
		return w.ctx.Err()
	}
	return nil
}

// flush sends everything written so far, gathered or not, and waits for
// the server to have done it.
func (w *restoreWriter) flush() error {
	if err := w.send(); err != nil {
		return err
	}
	w.inFlight.Wait()
	return w.err()
}
