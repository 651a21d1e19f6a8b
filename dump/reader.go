package dump

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"sync/atomic"

	"cairn/meta"
)

// maxFrame bounds one record: the longest is an xattr of 64 KiB, or a
// chunk's slice list, which compaction keeps short.
const maxFrame = 4 << 20

// Reader decodes a dump written by Writer, in either form and any
// compression, and checks it as it reads (see the package comment). It is
// the meta.DumpReader handed to an engine's Restore: Next returns io.EOF
// only once the whole dump has been read and passed every check, so an
// engine that stops at the first other error never writes a damaged
// volume's settings.
type Reader struct {
	name    string
	in      *bufio.Reader
	release func()
	binary  bool
	head    header
	rec     meta.DumpRecord
	records uint64 // records read, not counting the header
	inodes  atomic.Uint64
	check   *checker
	done    bool
	ahead   readAhead
}

var _ meta.DumpReader = (*Reader)(nil)

// NewReader reads the header of the dump in r; name (a file name, or
// "standard input") is what error messages call it.
func NewReader(r io.Reader, name string) (*Reader, error) {
	raw := bufio.NewReaderSize(r, 64<<10)
	if _, err := raw.Peek(1); err == io.EOF {
		return nil, fmt.Errorf("%s is empty, not a cairn dump", name)
	}
	plain, release, err := decompressor(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	d := &Reader{name: name, in: bufio.NewReaderSize(plain, 256<<10), release: release, check: newChecker()}
	if err := d.readHeader(); err != nil {
		release()
		return nil, err
	}
	return d, nil
}

func (d *Reader) notDump() error {
	return fmt.Errorf("%s is not a cairn dump (no cairn dump header at its start)", d.name)
}

func (d *Reader) readHeader() error {
	start, err := d.in.Peek(len(binaryMagic))
	if err != nil && len(start) == 0 {
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("%s is empty, not a cairn dump", d.name)
		}
		return fmt.Errorf("read %s: %w", d.name, err)
	}
	var js []byte
	if string(start) == binaryMagic {
		d.binary = true
		d.in.Discard(len(binaryMagic))
		version, err := binary.ReadUvarint(d.in)
		if err != nil {
			return d.truncated()
		}
		if err := d.checkVersion(int(version)); err != nil {
			return err
		}
		kind, payload, err := d.frame()
		if err != nil {
			return err
		}
		if kind != frameHeader {
			return d.notDump()
		}
		js = payload
	} else {
		if start[0] != '{' {
			return d.notDump()
		}
		line, err := d.line()
		if err == io.EOF {
			return d.notDump()
		}
		if err != nil {
			return err
		}
		if len(line) == 0 || line[0] != '{' {
			return d.notDump()
		}
		js = line
	}
	var probe struct {
		Version *int `json:"cairn_dump"`
	}
	if err := json.Unmarshal(js, &probe); err != nil || probe.Version == nil {
		return d.notDump()
	}
	if err := d.checkVersion(*probe.Version); err != nil {
		return err
	}
	if err := json.Unmarshal(js, &d.head); err != nil {
		return fmt.Errorf("%s: the header is damaged: %v", d.name, err)
	}
	if err := meta.CheckVersion(d.head.Format); err != nil {
		return fmt.Errorf("%s: %w", d.name, err)
	}
	return nil
}

func (d *Reader) checkVersion(v int) error {
	if v > Version {
		return fmt.Errorf("%s is a dump of format version %d, newer than this cairn reads (%d): load it with a newer cairn", d.name, v, Version)
	}
	if v < 1 {
		return fmt.Errorf("%s has format version %d, which no cairn writes: the file is damaged", d.name, v)
	}
	return nil
}

// line reads one JSON line, without its newline.
func (d *Reader) line() ([]byte, error) {
	line, err := d.in.ReadSlice('\n')
	switch {
	case errors.Is(err, bufio.ErrBufferFull):
		return nil, d.damaged(errors.New("line longer than any record"))
	case err == io.EOF && len(line) > 0:
		return nil, d.truncated()
	case err == io.EOF:
		return nil, io.EOF
	case errors.Is(err, io.ErrUnexpectedEOF):
		return nil, d.truncated()
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", d.name, err)
	}
	return line[:len(line)-1], nil
}

// frame reads one frame of the binary form and checks its checksum.
func (d *Reader) frame() (kind byte, payload []byte, err error) {
	kind, err = d.in.ReadByte()
	if err != nil {
		return 0, nil, err
	}
	n, err := binary.ReadUvarint(d.in)
	if err != nil {
		return 0, nil, d.truncated()
	}
	if n > maxFrame {
		return 0, nil, d.damaged(fmt.Errorf("record of %d bytes, longer than any record", n))
	}
	buf := make([]byte, n+4)
	if _, err := io.ReadFull(d.in, buf); err != nil {
		return 0, nil, d.truncated()
	}
	payload, sum := buf[:n], binary.LittleEndian.Uint32(buf[n:])
	if crc32.Update(crc32.Update(0, castagnoli, []byte{kind}), castagnoli, payload) != sum {
		return 0, nil, d.damaged(errors.New("checksum mismatch"))
	}
	return kind, payload, nil
}

// where names the record being read.
func (d *Reader) where() string {
	if d.binary {
		return fmt.Sprintf("record %d", d.records+1)
	}
	return fmt.Sprintf("line %d", d.records+2)
}

func (d *Reader) damaged(err error) error {
	return fmt.Errorf("%s: %s is damaged: %v", d.name, d.where(), err)
}

func (d *Reader) truncated() error {
	return fmt.Errorf("%s is truncated: it ends at %s without the end record (an interrupted dump or copy?)", d.name, d.where())
}

// Header implements meta.DumpReader.
func (d *Reader) Header() meta.DumpHeader { return d.head.meta() }

// decode reads, decodes and checks the next record into d.rec; it runs
// on the read-ahead goroutine (readahead.go).
func (d *Reader) decode() (*meta.DumpRecord, error) {
	if d.done {
		return nil, io.EOF
	}
	end, count, err := d.next()
	if err != nil {
		return nil, err
	}
	if end {
		return nil, d.finish(count)
	}
	if err := d.check.record(&d.rec); err != nil {
		return nil, d.damaged(err)
	}
	d.records++
	if d.rec.Kind == meta.DumpInode {
		d.inodes.Add(1)
	}
	return &d.rec, nil
}

// next decodes one record into d.rec, or reports the trailer.
func (d *Reader) next() (end bool, count uint64, err error) {
	if d.binary {
		kind, payload, err := d.frame()
		if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
			return false, 0, d.truncated()
		}
		if err != nil {
			return false, 0, fmt.Errorf("read %s: %w", d.name, err)
		}
		if kind == frameTrailer {
			p := payloadReader{b: payload}
			count = p.uvarint()
			if p.err != nil || len(p.b) > 0 {
				return false, 0, d.damaged(errors.New("bad end record"))
			}
			return true, count, nil
		}
		if err := decodeBinaryRecord(kind, payload, &d.rec); err != nil {
			return false, 0, d.damaged(err)
		}
		return false, 0, nil
	}
	line, err := d.line()
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		return false, 0, d.truncated()
	}
	if err != nil {
		return false, 0, err
	}
	end, count, err = decodeJSONLine(line, &d.rec)
	if err != nil {
		return false, 0, d.damaged(err)
	}
	return end, count, nil
}

// finish checks the trailer and the dump as a whole.
func (d *Reader) finish(count uint64) error {
	if count != d.records {
		return fmt.Errorf("%s: the end record counts %d records, the dump holds %d: the file is damaged", d.name, count, d.records)
	}
	if _, err := d.in.Peek(1); err != io.EOF {
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("read %s: %w", d.name, err)
		}
		return fmt.Errorf("%s: data follows the end record: the file is damaged", d.name)
	}
	if err := d.check.finish(d.head); err != nil {
		return fmt.Errorf("%s: %v", d.name, err)
	}
	d.done = true
	return io.EOF
}

// Progress reports the inodes read so far and the number the header
// announced (the source's usage, an estimate).
func (d *Reader) Progress() (inodes, expected uint64) {
	return d.inodes.Load(), d.head.Usage.Inodes
}

// Close stops reading ahead and releases the decompressor; it does not
// close the underlying reader.
func (d *Reader) Close() error {
	d.ahead.stop(d.release)
	return nil
}
