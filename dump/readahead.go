package dump

import (
	"sync"

	"cairn/meta"
)

// aheadBatch is how many records the read-ahead goroutine hands over at a
// time, and aheadBatches how many batches it may be ahead of the engine.
const (
	aheadBatch   = 1024
	aheadBatches = 4
)

// batch is decoded records, then the error that ended the input (io.EOF
// once the whole dump passed its checks) if err is set.
type batch struct {
	records []meta.DumpRecord
	err     error
}

// readAhead decodes and checks records on a goroutine of its own while the
// engine writes the ones before, so that a load uses two cores. Memory is
// bounded by aheadBatches × aheadBatch records.
type readAhead struct {
	once     sync.Once
	batches  chan *batch
	free     chan *batch
	quit     chan struct{}
	current  *batch
	next     int
	stopOnce sync.Once
	exited   chan struct{}
}

// Next implements meta.DumpReader: the records decode() returns, in
// order, read ahead.
func (d *Reader) Next() (*meta.DumpRecord, error) {
	a := &d.ahead
	a.once.Do(func() { a.start(d) })
	for a.current == nil || a.next == len(a.current.records) {
		if a.current != nil {
			if a.current.err != nil {
				return nil, a.current.err
			}
			a.free <- a.current
		}
		a.current, a.next = <-a.batches, 0
	}
	a.next++
	return &a.current.records[a.next-1], nil
}

func (a *readAhead) start(d *Reader) {
	a.batches = make(chan *batch, aheadBatches)
	a.free = make(chan *batch, aheadBatches+2)
	a.quit = make(chan struct{})
	a.exited = make(chan struct{})
	for range aheadBatches + 2 {
		a.free <- &batch{records: make([]meta.DumpRecord, 0, aheadBatch)}
	}
	go a.run(d)
}

func (a *readAhead) run(d *Reader) {
	defer close(a.exited)
	for {
		var b *batch
		select {
		case b = <-a.free:
		case <-a.quit:
			return
		}
		b.records, b.err = b.records[:0], nil
		for len(b.records) < aheadBatch && b.err == nil {
			rec, err := d.decode()
			if err != nil {
				b.err = err
				break
			}
			b.records = append(b.records, *rec)
		}
		select {
		case a.batches <- b:
		case <-a.quit:
			return
		}
		if b.err != nil {
			return
		}
	}
}

// stop ends the goroutine, if one started, and then calls release: the
// goroutine may be reading from what release frees.
func (a *readAhead) stop(release func()) {
	a.stopOnce.Do(func() {
		a.once.Do(func() {}) // no goroutine may start after this
		if a.quit == nil {
			release()
			return
		}
		close(a.quit)
		go func() {
			<-a.exited
			release()
		}()
	})
}
