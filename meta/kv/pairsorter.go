package kv

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
)

// pairSorter puts key/value pairs that arrive in any order, more of them
// than memory holds, into key order (an external merge sort). It keeps up
// to bufferBytes of pairs in memory; when they fill it, it sorts them and
// writes them to a run file in dir (appended to the previous run when they
// all sort after it, so that pairs arriving in order make one run), and
// each then merges the runs. Of pairs with equal keys, the one added last
// wins. Run files are unlinked as soon as they are created, so that a
// killed load leaves none behind. A pairSorter is used by one goroutine.
//
// A full buffer is sorted and written on a goroutine of its own while add
// fills a second one: the load's reading and decoding, and the sort, then
// use both cores of a small machine. One spill at most is in flight; the
// second buffer is allocated at the first spill, so pairs that fit in one
// buffer cost one.
type pairSorter struct {
	dir         string
	bufferBytes int
	pairBuffer  // being filled
	spare       pairBuffer
	runs        []*sortRun // the spill in flight's, until it is waited for
	spilling    chan error // the spill in flight's result; nil if none
	spilled     pairBuffer // the buffer the spill in flight reads
}

// pairBuffer is buffered pairs and the arena that holds their keys and
// values.
type pairBuffer struct {
	arena []byte     // keys and values of the buffered pairs
	pairs []pairSpan // in the order added
}

// pairSpan locates one buffered pair in the arena.
type pairSpan struct {
	start            uint32
	keyLen, valueLen uint32
}

func (p pairSpan) key(arena []byte) []byte {
	return arena[p.start : p.start+p.keyLen]
}

func (p pairSpan) value(arena []byte) []byte {
	end := p.start + p.keyLen + p.valueLen
	return arena[p.start+p.keyLen : end]
}

// sortRun is one sorted run file, and the last key written to it.
type sortRun struct {
	file    *os.File
	out     *bufio.Writer
	lastKey []byte
}

// maxMergeRuns bounds how many runs one merge reads at once (each with a
// read buffer); beyond it, runs are first merged into one.
const maxMergeRuns = 64

// runBufferBytes is the read and write buffer of one run file.
const runBufferBytes = 64 << 10

func newPairSorter(dir string, bufferBytes int) *pairSorter {
	return &pairSorter{dir: dir, bufferBytes: bufferBytes}
}

// add buffers a copy of key and value.
func (s *pairSorter) add(key, value []byte) error {
	if s.arena == nil {
		// Allocated once at its full size: grown by append, it would
		// leave the smaller arrays behind for the collector.
		s.arena = make([]byte, 0, s.bufferBytes)
	}
	if n := len(key) + len(value); len(s.arena)+n > cap(s.arena) && len(s.pairs) > 0 {
		if err := s.spill(); err != nil {
			return err
		}
	}
	start := len(s.arena)
	s.arena = append(append(s.arena, key...), value...)
	s.pairs = append(s.pairs, pairSpan{start: uint32(start), keyLen: uint32(len(key)), valueLen: uint32(len(value))})
	return nil
}

// sorted sorts the buffered pairs and drops all but the last of equal keys.
func (b *pairBuffer) sorted() []pairSpan {
	// Equal keys in the order added, by their place in the arena: an
	// unstable sort with that tie-break is much faster than a stable one.
	slices.SortFunc(b.pairs, func(x, y pairSpan) int {
		if c := bytes.Compare(x.key(b.arena), y.key(b.arena)); c != 0 {
			return c
		}
		return cmp.Compare(x.start, y.start)
	})
	out := b.pairs[:0]
	for i, p := range b.pairs {
		if i+1 < len(b.pairs) && bytes.Equal(p.key(b.arena), b.pairs[i+1].key(b.arena)) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// spill hands the buffered pairs to a goroutine that writes them, sorted,
// to a run, once the spill before it is done, and goes on with the other
// buffer.
func (s *pairSorter) spill() error {
	if err := s.wait(); err != nil {
		return err
	}
	if s.spare.arena == nil {
		s.spare.arena = make([]byte, 0, s.bufferBytes)
	}
	s.spilled, s.pairBuffer, s.spare = s.pairBuffer, s.spare, pairBuffer{}
	done := make(chan error, 1)
	s.spilling = done
	go func() { done <- s.writeRun(&s.spilled) }()
	return nil
}

// wait waits for the spill in flight, if any, and takes its buffer back
// as the spare. It returns the spill's error.
func (s *pairSorter) wait() error {
	if s.spilling == nil {
		return nil
	}
	err := <-s.spilling
	s.spilling = nil
	s.spare = pairBuffer{arena: s.spilled.arena[:0], pairs: s.spilled.pairs[:0]}
	s.spilled = pairBuffer{}
	return err
}

// writeRun writes b's pairs, sorted, to a run, and merges the runs when
// there are more than one merge reads.
func (s *pairSorter) writeRun(b *pairBuffer) error {
	pairs := b.sorted()
	if len(pairs) == 0 {
		return nil
	}
	var run *sortRun
	if n := len(s.runs); n > 0 && bytes.Compare(pairs[0].key(b.arena), s.runs[n-1].lastKey) > 0 {
		run = s.runs[n-1]
	} else {
		var err error
		if run, err = s.newRun(); err != nil {
			return err
		}
	}
	for _, p := range pairs {
		if err := run.write(p.key(b.arena), p.value(b.arena)); err != nil {
			return err
		}
	}
	run.lastKey = append(run.lastKey[:0], pairs[len(pairs)-1].key(b.arena)...)
	if len(s.runs) > maxMergeRuns {
		return s.mergeRuns()
	}
	return nil
}

func (s *pairSorter) newRun() (*sortRun, error) {
	f, err := os.CreateTemp(s.dir, "load-sort-*")
	if err != nil {
		return nil, fmt.Errorf("sort the load's keys: %w", err)
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, fmt.Errorf("sort the load's keys: %w", err)
	}
	run := &sortRun{file: f, out: bufio.NewWriterSize(f, runBufferBytes)}
	s.runs = append(s.runs, run)
	return run, nil
}

func (r *sortRun) write(key, value []byte) error {
	var head [2 * binary.MaxVarintLen64]byte
	n := binary.PutUvarint(head[:], uint64(len(key)))
	n += binary.PutUvarint(head[n:], uint64(len(value)))
	r.out.Write(head[:n])
	r.out.Write(key)
	_, err := r.out.Write(value)
	if err != nil {
		return fmt.Errorf("sort the load's keys: %w", err)
	}
	return nil
}

// mergeRuns merges every run written so far into one new run.
func (s *pairSorter) mergeRuns() error {
	old := s.runs
	s.runs = nil
	run, err := s.newRun()
	if err != nil {
		s.runs = old // close still closes them
		return err
	}
	err = mergeSortRuns(old, nil, func(key, value []byte) error {
		run.lastKey = append(run.lastKey[:0], key...)
		return run.write(key, value)
	})
	for _, r := range old {
		r.file.Close()
	}
	return err
}

// freeBuffer writes the buffered pairs to a run and drops the buffers,
// when the pairs did not all fit in one (there are runs already): the
// merge then reads every pair from the runs, and what the buffers held is
// free for the writer the pairs go to. Pairs that all fit stay in memory.
func (s *pairSorter) freeBuffer() error {
	if err := s.wait(); err != nil {
		return err
	}
	if len(s.runs) == 0 {
		return nil
	}
	if err := s.writeRun(&s.pairBuffer); err != nil {
		return err
	}
	s.pairBuffer, s.spare = pairBuffer{}, pairBuffer{}
	return nil
}

// each calls fn for every pair added, in key order, once per key. fn must
// not keep key or value.
func (s *pairSorter) each(fn func(key, value []byte) error) error {
	if err := s.wait(); err != nil {
		return err
	}
	last := s.sorted()
	if len(s.runs) == 0 {
		for _, p := range last {
			if err := fn(p.key(s.arena), p.value(s.arena)); err != nil {
				return err
			}
		}
		return nil
	}
	return mergeSortRuns(s.runs, &memoryRun{arena: s.arena, pairs: last}, fn)
}

// close waits for the spill in flight and releases the runs.
func (s *pairSorter) close() {
	s.wait()
	for _, r := range s.runs {
		r.file.Close()
	}
	s.runs, s.pairBuffer, s.spare = nil, pairBuffer{}, pairBuffer{}
}

// pairSource yields the pairs of one sorted run.
type pairSource interface {
	// next returns the next pair, or io.EOF. The slices stay valid until
	// the following call.
	next() (key, value []byte, err error)
}

// memoryRun is the sorted pairs still in memory.
type memoryRun struct {
	arena []byte
	pairs []pairSpan
}

func (m *memoryRun) next() ([]byte, []byte, error) {
	if len(m.pairs) == 0 {
		return nil, nil, io.EOF
	}
	p := m.pairs[0]
	m.pairs = m.pairs[1:]
	return p.key(m.arena), p.value(m.arena), nil
}

// fileRun reads a run file back.
type fileRun struct {
	in  *bufio.Reader
	buf []byte
}

func (r *fileRun) next() ([]byte, []byte, error) {
	keyLen, err := binary.ReadUvarint(r.in)
	if err != nil {
		return nil, nil, err // io.EOF at the end of the run
	}
	valueLen, err := binary.ReadUvarint(r.in)
	if err != nil {
		return nil, nil, fmt.Errorf("sort the load's keys: read a run: %w", err)
	}
	n := int(keyLen + valueLen)
	if cap(r.buf) < n {
		r.buf = make([]byte, n)
	}
	r.buf = r.buf[:n]
	if _, err := io.ReadFull(r.in, r.buf); err != nil {
		return nil, nil, fmt.Errorf("sort the load's keys: read a run: %w", err)
	}
	return r.buf[:keyLen], r.buf[keyLen:], nil
}

// mergeSortRuns calls fn for the pairs of runs, then newest (which may be
// nil), in key order; of equal keys, the pair of the later run wins.
func mergeSortRuns(runs []*sortRun, newest pairSource, fn func(key, value []byte) error) error {
	var sources []pairSource
	for _, r := range runs {
		if err := r.out.Flush(); err != nil {
			return fmt.Errorf("sort the load's keys: %w", err)
		}
		if _, err := r.file.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("sort the load's keys: %w", err)
		}
		sources = append(sources, &fileRun{in: bufio.NewReaderSize(r.file, runBufferBytes)})
	}
	if newest != nil {
		sources = append(sources, newest)
	}
	h := &mergeHeap{}
	for i, src := range sources {
		if err := h.pull(src, i); err != nil {
			return err
		}
	}
	h.init()
	for len(h.heads) > 0 {
		top := &h.heads[0]
		key, value := top.key, top.value
		// Equal keys come out in the order of their runs, and the later
		// run wins: skip this pair if the next one has its key. The
		// source's slices stay valid until its next call.
		last := len(h.heads) == 1 || !h.equalsNext(key)
		if last {
			if err := fn(key, value); err != nil {
				return err
			}
		}
		if err := h.advanceTop(); err != nil {
			return err
		}
	}
	return nil
}

// mergeHead is the current pair of one source of a merge.
type mergeHead struct {
	key, value []byte
	src        pairSource
	rank       int // the source's place in time: later wins
}

// mergeHeap is a binary min-heap of the sources' current pairs, ordered
// by key and then by rank. It is written out rather than through
// container/heap, whose Push and Pop box each head into an interface: an
// allocation for every pair a load sorts.
type mergeHeap struct{ heads []mergeHead }

func (h *mergeHeap) less(i, j int) bool {
	if c := bytes.Compare(h.heads[i].key, h.heads[j].key); c != 0 {
		return c < 0
	}
	return h.heads[i].rank < h.heads[j].rank
}

func (h *mergeHeap) init() {
	for i := len(h.heads)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

// down moves the head at i down to its place.
func (h *mergeHeap) down(i int) {
	n := len(h.heads)
	for {
		smallest := i
		if left := 2*i + 1; left < n && h.less(left, smallest) {
			smallest = left
		}
		if right := 2*i + 2; right < n && h.less(right, smallest) {
			smallest = right
		}
		if smallest == i {
			return
		}
		h.heads[i], h.heads[smallest] = h.heads[smallest], h.heads[i]
		i = smallest
	}
}

// equalsNext says whether the smallest of the other heads has key (the
// top's children are the only candidates).
func (h *mergeHeap) equalsNext(key []byte) bool {
	for _, child := range []int{1, 2} {
		if child < len(h.heads) && bytes.Equal(h.heads[child].key, key) {
			return true
		}
	}
	return false
}

// pull appends src's first pair, if any (before init).
func (h *mergeHeap) pull(src pairSource, rank int) error {
	key, value, err := src.next()
	if errors.Is(err, io.EOF) {
		return nil
	}
	if err != nil {
		return err
	}
	h.heads = append(h.heads, mergeHead{key: key, value: value, src: src, rank: rank})
	return nil
}

// advanceTop replaces the top with the next pair of its source, or drops
// it when the source is done.
func (h *mergeHeap) advanceTop() error {
	top := &h.heads[0]
	key, value, err := top.src.next()
	switch {
	case errors.Is(err, io.EOF):
		last := len(h.heads) - 1
		h.heads[0] = h.heads[last]
		h.heads = h.heads[:last]
	case err != nil:
		return err
	default:
		top.key, top.value = key, value
	}
	if len(h.heads) > 0 {
		h.down(0)
	}
	return nil
}
