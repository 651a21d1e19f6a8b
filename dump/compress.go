package dump

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Compression names, as picked by CompressionFor.
const (
	CompressNone = ""
	CompressGzip = "gzip"
	CompressZstd = "zstd"
)

// CompressionFor is the compression a file's name asks for: .gz is gzip,
// .zst zstd, anything else none.
func CompressionFor(path string) string {
	switch {
	case strings.HasSuffix(path, ".gz"):
		return CompressGzip
	case strings.HasSuffix(path, ".zst"):
		return CompressZstd
	}
	return CompressNone
}

// compressor wraps w in compression c; closing it flushes the compressed
// stream but does not close w.
func compressor(w io.Writer, c string) (io.WriteCloser, error) {
	switch c {
	case CompressNone:
		return nopCloser{w}, nil
	case CompressGzip:
		return gzip.NewWriterLevel(w, gzip.BestSpeed)
	case CompressZstd:
		return zstd.NewWriter(w, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	}
	return nil, fmt.Errorf("unknown compression %q", c)
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// decompressor recognises gzip and zstd by their first bytes and returns
// a reader of the plain stream, and a function releasing it.
func decompressor(r *bufio.Reader) (io.Reader, func(), error) {
	start, _ := r.Peek(4)
	switch {
	case bytes.HasPrefix(start, gzipMagic):
		z, err := gzip.NewReader(r)
		if err != nil {
			return nil, nil, fmt.Errorf("not a valid gzip file: %w", err)
		}
		return z, func() { z.Close() }, nil
	case bytes.HasPrefix(start, zstdMagic):
		z, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
		if err != nil {
			return nil, nil, fmt.Errorf("not a valid zstd file: %w", err)
		}
		return z, z.Close, nil
	}
	return r, func() {}, nil
}
