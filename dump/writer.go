package dump

import (
	"fmt"
	"io"
	"sync/atomic"

	"cairn/meta"
)

// Options say how a Writer encodes.
type Options struct {
	Binary      bool   // the binary form instead of JSON
	Compression string // CompressNone, CompressGzip or CompressZstd
}

type encoder interface {
	header(b []byte, h header) ([]byte, error)
	record(b []byte, r *meta.DumpRecord) []byte
	trailer(b []byte, records uint64) []byte
}

// Writer encodes a volume as a dump; it is the meta.DumpWriter handed to
// an engine's Dump. Close writes the trailer: a dump that was not closed
// reads as truncated. Memory stays bounded: records go out as they come.
type Writer struct {
	enc      encoder
	buf      *writeBehind
	zip      io.WriteCloser
	scratch  []byte
	records  uint64
	inodes   atomic.Uint64
	expected atomic.Uint64
	headed   bool
}

var _ meta.DumpWriter = (*Writer)(nil)

// NewWriter writes a dump to w as o says.
func NewWriter(w io.Writer, o Options) (*Writer, error) {
	zip, err := compressor(w, o.Compression)
	if err != nil {
		return nil, err
	}
	var enc encoder = jsonEncoder{}
	if o.Binary {
		enc = &binaryEncoder{}
	}
	return &Writer{enc: enc, zip: zip, buf: newWriteBehind(zip)}, nil
}

// Header implements meta.DumpWriter.
func (w *Writer) Header(h meta.DumpHeader) error {
	if w.headed {
		return fmt.Errorf("dump header written twice")
	}
	w.headed = true
	w.expected.Store(h.Usage.Inodes)
	b, err := w.enc.header(w.scratch[:0], toHeader(h))
	if err != nil {
		return err
	}
	return w.write(b)
}

// Record implements meta.DumpWriter.
func (w *Writer) Record(r *meta.DumpRecord) error {
	if !w.headed {
		return fmt.Errorf("dump record before the header")
	}
	w.records++
	if r.Kind == meta.DumpInode {
		w.inodes.Add(1)
	}
	return w.write(w.enc.record(w.scratch[:0], r))
}

func (w *Writer) write(b []byte) error {
	w.scratch = b
	if _, err := w.buf.Write(b); err != nil {
		return fmt.Errorf("write dump: %w", err)
	}
	return nil
}

// Progress reports the inodes written so far and the number the header
// announced (the source's usage, an estimate).
func (w *Writer) Progress() (inodes, expected uint64) {
	return w.inodes.Load(), w.expected.Load()
}

// Abort ends a dump that failed without writing the trailer (so that what
// was written reads as truncated) and stops the writing goroutine. Close
// or Abort must end every Writer.
func (w *Writer) Abort() {
	w.buf.Close()
}

// Close writes the trailer and flushes; it does not close the underlying
// writer.
func (w *Writer) Close() error {
	if !w.headed {
		return fmt.Errorf("dump closed without a header")
	}
	if err := w.write(w.enc.trailer(w.scratch[:0], w.records)); err != nil {
		return err
	}
	if err := w.buf.Close(); err != nil {
		return fmt.Errorf("write dump: %w", err)
	}
	if err := w.zip.Close(); err != nil {
		return fmt.Errorf("write dump: %w", err)
	}
	return nil
}
