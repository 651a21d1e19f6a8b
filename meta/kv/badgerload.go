package kv

import (
	"encoding/binary"
	"errors"
	"fmt"
	"runtime/debug"
	"sync/atomic"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/ristretto/v2/z"

	"cairn/meta"
)

// sortedLoader is a store that takes a load's keys in key order and
// writes them without transactions, straight into its files (Badger's
// StreamWriter): much faster than transactions, and free of the
// compactions that keys in no order cause.
type sortedLoader interface {
	// sortDir is a directory on the store's disk for the load's sort runs.
	sortDir() string
	// startLoad refuses a store that holds any key, and readies it for a
	// load: from then until endLoad, the store may keep less in memory
	// and be slower at anything but loadSorted.
	startLoad() error
	// loadSorted writes the pairs of every family, each family yielding
	// its keys in increasing order and the families' keys not
	// interleaving. On failure it drops what it wrote; a load killed
	// midway leaves keys that no volume's settings name.
	loadSorted(families []pairFamily) error
	// endLoad readies the store for its ordinary use again, whether the
	// load succeeded or not.
	endLoad() error
}

// pairFamily calls yield for each pair of one family of keys, in key
// order. yield does not keep the slices.
type pairFamily func(yield func(key, value []byte) error) error

var _ sortedLoader = (*BadgerStore)(nil)

func (s *BadgerStore) sortDir() string { return s.db.Opts().Dir }

// streamBatchBytes is how much a load hands the StreamWriter at once. The
// StreamWriter decodes each batch into entries of its own and queues up to
// four of them per stream, so this bounds memory as much as it saves calls.
const streamBatchBytes = 1 << 20

// loadOptions are the options a load opens the database with, between
// startLoad and endLoad, in place of a mount's (opts); its tables are
// ones a mount reads as well as its own.
//
// A StreamWriter's table builder takes about fourteen times the table's
// size: it allocates the blocks before compression, their compressed
// copies at Snappy's worst-case size, and doubles its allocator's buffers
// as they fill; Badger keeps every builder's allocator for the next table,
// one for each table being built or written at once. Tables of 2 MiB took
// 28 MiB each, a third of a 10 million inode load's heap. The memtable,
// which the StreamWriter never fills, is allocated whole at open, and
// counts in the heap the collector paces itself by.
func loadOptions(opts badger.Options) badger.Options {
	opts.BaseTableSize = loadTableBytes
	return opts.WithMemTableSize(8 << 20) // the smallest that keeps ValueThreshold's 1 MiB
}

// loadTableBytes is the size of the tables a load writes.
const loadTableBytes = 1 << 20

func (s *BadgerStore) startLoad() error {
	if err := s.checkEmpty(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reopen(loadOptions(s.opts))
}

// endLoad opens the database with a mount's options again, for what
// follows the load (its settings, and a migrated volume's mount). Opening
// reads every table's index, which maps in about a tenth of the tables:
// those pages are dropped after.
func (s *BadgerStore) endLoad() error {
	s.mu.Lock()
	err := s.reopen(s.opts)
	s.mu.Unlock()
	newMappedTables(s.opts.Dir).release()
	return err
}

// loadGCPercent is the collector's target while a load streams into
// Badger. The live heap then is 40-90 MiB at 10 million inodes (Badger's
// table builders and decoded batches, its index cache, the load's checks),
// and the default of 100 lets the heap grow to twice that. The stream is
// the load's peak: at 25 a load of 10 million inodes peaked at 153 MiB,
// at 50 at 154 and 171 MiB (two runs), and a load of a million took 6%
// less time at 50, the collector marking less often (README, "Dump and load").
const loadGCPercent = 50

func (s *BadgerStore) loadSorted(families []pairFamily) error {
	// Only lowered: a smaller GOGC the user set stays.
	if previous := debug.SetGCPercent(loadGCPercent); previous >= 0 && previous < loadGCPercent {
		debug.SetGCPercent(previous)
	} else {
		defer debug.SetGCPercent(previous)
	}
	return s.streamSorted(families)
}

// streamSorted writes families through a StreamWriter.
func (s *BadgerStore) streamSorted(families []pairFamily) error {
	w := s.db.NewStreamWriter()
	// Prepare drops what the database holds (nothing, as checked) and
	// stops its writes and compactions until Flush or Cancel.
	if err := w.Prepare(); err != nil {
		w.Cancel()
		return fmt.Errorf("badger stream writer: %w", err)
	}
	if err := s.streamFamilies(w, families); err != nil {
		w.Cancel()
		if derr := s.db.DropAll(); derr != nil {
			return fmt.Errorf("%w (and dropping what was written failed: %v)", err, derr)
		}
		return err
	}
	if err := w.Flush(); err != nil {
		if derr := s.db.DropAll(); derr != nil {
			return fmt.Errorf("badger stream writer: %w (and dropping what was written failed: %v)", err, derr)
		}
		return fmt.Errorf("badger stream writer: %w", err)
	}
	return nil
}

// checkEmpty fails unless the database holds no key at all: Prepare would
// drop them.
func (s *BadgerStore) checkEmpty() error {
	return s.db.View(func(txn *badger.Txn) error {
		opts := badger.DefaultIteratorOptions
		opts.PrefetchValues = false
		it := txn.NewIterator(opts)
		defer it.Close()
		it.Rewind()
		if it.Valid() {
			return meta.ErrDatabaseNotEmpty
		}
		return nil
	})
}

// streamFamilies writes each family as one stream of w, and closes it.
// The pairs are gathered into one buffer while the StreamWriter decodes
// the previous one, in another goroutine: on two cores, the merge of the
// sort runs and Badger's work overlap.
func (s *BadgerStore) streamFamilies(w *badger.StreamWriter, families []pairFamily) (err error) {
	full := make(chan *z.Buffer, 1)
	free := make(chan *z.Buffer, 2)
	for range 2 {
		free <- z.NewBuffer(2*streamBatchBytes, "cairn.load")
	}
	written := make(chan error, 1)
	var failed atomic.Bool
	// The tables the StreamWriter finishes stay mapped in; the load never
	// reads them again.
	tables := newMappedTables(s.db.Opts().Dir)
	go func() {
		var err error
		for buf := range full {
			if err == nil {
				if err = w.Write(buf); err != nil {
					err = fmt.Errorf("badger stream writer: %w", err)
					failed.Store(true)
				}
				tables.handled(buf.LenNoPadding())
			}
			buf.Reset()
			free <- buf
		}
		written <- err
	}()
	buf := <-free
	defer func() {
		close(full)
		if werr := <-written; err == nil {
			err = werr
		}
		buf.Release()
		(<-free).Release()
	}()
	// send hands buf over; once a write failed, it stops the load (the
	// deferred wait returns the write's error).
	send := func() error {
		full <- buf
		buf = <-free
		if failed.Load() {
			return errStreamStopped
		}
		return nil
	}
	for i, family := range families {
		stream := uint32(i + 1)
		err := family(func(key, value []byte) error {
			// The StreamWriter copies values, and keys as it decodes them.
			putStreamKV(buf, key, value, stream, false)
			if buf.LenNoPadding() >= streamBatchBytes {
				return send()
			}
			return nil
		})
		if err == nil {
			// Closing the stream builds its last table and frees its
			// builder.
			putStreamKV(buf, nil, nil, stream, true)
			err = send()
		}
		if errors.Is(err, errStreamStopped) {
			return nil // the deferred wait returns why
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// errStreamStopped stops a load's families once a write failed.
var errStreamStopped = errors.New("the stream writer failed")

// putStreamKV appends to buf what badger.KVToBuffer appends for a pb.KV of
// key, value, version 1, stream and done: its protobuf encoding (fields
// 1 key, 2 value, 4 version, 10 stream_id, 11 stream_done), written
// directly, as the reflection of proto.Marshal cost a load a fifth of its
// time.
func putStreamKV(buf *z.Buffer, key, value []byte, stream uint32, done bool) {
	size := 2 + 1 + uvarintLen(uint64(stream)) // version 1, stream
	if len(key) > 0 {
		size += 1 + uvarintLen(uint64(len(key))) + len(key)
	}
	if len(value) > 0 {
		size += 1 + uvarintLen(uint64(len(value))) + len(value)
	}
	if done {
		size += 2
	}
	b := buf.SliceAllocate(size)[:0]
	if len(key) > 0 {
		b = append(binary.AppendUvarint(append(b, 1<<3|2), uint64(len(key))), key...)
	}
	if len(value) > 0 {
		b = append(binary.AppendUvarint(append(b, 2<<3|2), uint64(len(value))), value...)
	}
	b = append(b, 4<<3, 1)
	b = binary.AppendUvarint(append(b, 10<<3), uint64(stream))
	if done {
		b = append(b, 11<<3, 1)
	}
}

func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}
