package migrate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"cairn/meta"
)

// BulkCopy copies one snapshot of src into dst, which must hold nothing
// (meta.ErrDatabaseNotEmpty otherwise, before anything is written): the
// records of src's Dump go straight into dst's Restore, a bounded number
// at a time, without a file in between. progress, when not nil, is
// called with the number of records copied so far, from time to time.
//
// For a migration the caller reads the change log's end before calling
// it (step 3 of the protocol): every change after that end is copied by
// the catch-up rounds.
func BulkCopy(ctx context.Context, src, dst meta.Engine, progress func(records uint64)) error {
	return bulkCopy(ctx, src, dst, nil, progress)
}

// bulkCopy is BulkCopy, with mark (when not nil) changing the volume's
// header on its way into dst: a migration marks the copy as its own.
func bulkCopy(ctx context.Context, src, dst meta.Engine, mark func(*meta.DumpHeader), progress func(records uint64)) error {
	from, ok := meta.VolumeDumper(src)
	if !ok {
		return fmt.Errorf("the %s engine cannot copy its volume out (no dump)", src.Name())
	}
	to, ok := meta.VolumeDumper(dst)
	if !ok {
		return fmt.Errorf("the %s engine cannot take a copied volume in (no load)", dst.Name())
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p := &pipe{header: make(chan meta.DumpHeader, 1), records: make(chan []meta.DumpRecord, 4)}
	w := &pipeWriter{pipe: p, ctx: ctx, mark: mark, progress: progress}
	dumped := make(chan error, 1)
	go func() {
		err := from.Dump(ctx, w)
		if err == nil {
			err = w.flush()
		}
		p.end(err)
		dumped <- err
	}()
	err := to.Restore(ctx, &pipeReader{pipe: p})
	cancel() // stops a dump that Restore gave up on
	dumpErr := <-dumped
	switch {
	case dumpErr != nil && !errors.Is(dumpErr, context.Canceled):
		return fmt.Errorf("read the volume from %s: %w", src.Name(), dumpErr)
	case err != nil:
		return fmt.Errorf("write the volume into %s: %w", dst.Name(), err)
	}
	return nil
}

// pipeBatch is how many records go over the pipe's channel together.
const pipeBatch = 256

// pipe carries a volume from a pipeWriter (a meta.DumpWriter) to a
// pipeReader (a meta.DumpReader), each used by its own goroutine.
type pipe struct {
	header  chan meta.DumpHeader
	records chan []meta.DumpRecord
	err     error // the writer's error, set before records is closed
}

// end ends the stream, with err (nil: the end of the volume).
func (p *pipe) end(err error) {
	p.err = err
	close(p.records)
	if err != nil {
		close(p.header) // a reader may still wait for the header
	}
}

type pipeWriter struct {
	*pipe
	ctx      context.Context
	mark     func(*meta.DumpHeader)
	batch    []meta.DumpRecord
	progress func(uint64)
	count    uint64
}

func (p *pipeWriter) Header(h meta.DumpHeader) error {
	if p.mark != nil {
		p.mark(&h)
	}
	p.header <- h
	return nil
}

func (p *pipeWriter) Record(rec *meta.DumpRecord) error {
	r := *rec // rec is only valid during the call
	r.Value = slices.Clone(rec.Value)
	r.Slices = slices.Clone(rec.Slices)
	p.batch = append(p.batch, r)
	if len(p.batch) < pipeBatch {
		return nil
	}
	return p.flush()
}

// flush sends the records waiting in batch.
func (p *pipeWriter) flush() error {
	if len(p.batch) == 0 {
		return nil
	}
	select {
	case p.records <- p.batch:
	case <-p.ctx.Done():
		return p.ctx.Err()
	}
	p.count += uint64(len(p.batch))
	if p.progress != nil {
		p.progress(p.count)
	}
	p.batch = nil
	return nil
}

type pipeReader struct {
	*pipe
	head    meta.DumpHeader
	headSet bool
	read    []meta.DumpRecord
	current meta.DumpRecord
}

// headerOK waits for the header; false when the dump failed first.
func (p *pipeReader) headerOK() bool {
	if !p.headSet {
		h, ok := <-p.header
		p.head, p.headSet = h, true
		return ok
	}
	return true
}

func (p *pipeReader) Header() meta.DumpHeader {
	p.headerOK()
	return p.head
}

func (p *pipeReader) Next() (*meta.DumpRecord, error) {
	if !p.headerOK() {
		return nil, fmt.Errorf("the copy stopped before it began: %w", p.errOr(io.ErrUnexpectedEOF))
	}
	for len(p.read) == 0 {
		batch, ok := <-p.records
		if !ok {
			if p.err != nil {
				return nil, p.err
			}
			return nil, io.EOF
		}
		p.read = batch
	}
	p.current, p.read = p.read[0], p.read[1:]
	return &p.current, nil
}

func (p *pipeReader) errOr(fallback error) error {
	if p.err != nil {
		return p.err
	}
	return fallback
}
