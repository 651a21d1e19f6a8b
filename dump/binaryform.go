package dump

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"

	"cairn/meta"
)

// binaryMagic opens the binary form.
const binaryMagic = "CAIRNBIN"

// Frame kinds of the binary form besides meta.DumpKind's.
const (
	frameHeader  = 'H'
	frameTrailer = 'E'
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// binaryEncoder writes the binary form.
type binaryEncoder struct{ payload []byte }

func (e *binaryEncoder) header(b []byte, h header) ([]byte, error) {
	js, err := json.Marshal(h)
	if err != nil {
		return b, fmt.Errorf("encode header: %w", err)
	}
	b = append(b, binaryMagic...)
	b = binary.AppendUvarint(b, uint64(h.Version))
	return appendFrame(b, frameHeader, js), nil
}

func (e *binaryEncoder) trailer(b []byte, records uint64) []byte {
	return appendFrame(b, frameTrailer, binary.AppendUvarint(nil, records))
}

func (e *binaryEncoder) record(b []byte, r *meta.DumpRecord) []byte {
	p := e.payload[:0]
	switch r.Kind {
	case meta.DumpInode:
		a := &r.Attr
		p = binary.AppendUvarint(p, uint64(r.Ino))
		p = append(p, byte(a.Type))
		for _, v := range []uint64{uint64(a.Mode), uint64(a.Uid), uint64(a.Gid), uint64(a.Rdev), uint64(a.Nlink), a.Length} {
			p = binary.AppendUvarint(p, v)
		}
		p = binary.AppendVarint(p, a.Atime)
		p = binary.AppendVarint(p, a.Mtime)
		p = binary.AppendVarint(p, a.Ctime)
		p = binary.AppendUvarint(p, uint64(a.Parent))
	case meta.DumpEntry:
		p = binary.AppendUvarint(p, uint64(r.Ino))
		p = appendBytes(p, r.Name)
		p = binary.AppendUvarint(p, uint64(r.Child))
		p = append(p, byte(r.Type))
	case meta.DumpSymlink:
		p = binary.AppendUvarint(p, uint64(r.Ino))
		p = append(p, r.Target...)
	case meta.DumpXattr:
		p = binary.AppendUvarint(p, uint64(r.Ino))
		p = appendBytes(p, r.Name)
		p = append(p, r.Value...)
	case meta.DumpChunk:
		p = binary.AppendUvarint(p, uint64(r.Ino))
		p = binary.AppendUvarint(p, uint64(r.Index))
		p = binary.AppendUvarint(p, uint64(len(r.Slices)))
		for _, s := range r.Slices {
			p = binary.AppendUvarint(p, uint64(s.Pos))
			p = binary.AppendUvarint(p, s.ID)
			p = binary.AppendUvarint(p, uint64(s.Size))
			p = binary.AppendUvarint(p, uint64(s.Off))
			p = binary.AppendUvarint(p, uint64(s.Len))
		}
	case meta.DumpDeadSlice:
		p = binary.AppendUvarint(p, r.Slice.ID)
		p = binary.AppendUvarint(p, uint64(r.Slice.Size))
	case meta.DumpQuota:
		q := &r.Quota
		p = binary.AppendUvarint(p, uint64(r.Ino))
		for _, v := range []int64{q.MaxSpace, q.MaxInodes, q.Space, q.Inodes} {
			p = binary.AppendVarint(p, v)
		}
	case meta.DumpDirStat:
		p = binary.AppendUvarint(p, uint64(r.Ino))
		p = binary.AppendVarint(p, r.DirStat.Space)
		p = binary.AppendVarint(p, r.DirStat.Inodes)
	}
	e.payload = p
	return appendFrame(b, byte(r.Kind), p)
}

func appendBytes(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

func appendFrame(b []byte, kind byte, payload []byte) []byte {
	b = append(b, kind)
	b = binary.AppendUvarint(b, uint64(len(payload)))
	b = append(b, payload...)
	crc := crc32.Update(crc32.Update(0, castagnoli, []byte{kind}), castagnoli, payload)
	return binary.LittleEndian.AppendUint32(b, crc)
}

// payloadReader takes a frame's payload apart; the first failure sticks.
type payloadReader struct {
	b   []byte
	err error
}

var errShortPayload = errors.New("record ends early")

func (p *payloadReader) uvarint() uint64 {
	if p.err != nil {
		return 0
	}
	v, n := binary.Uvarint(p.b)
	if n <= 0 {
		p.err = errShortPayload
		return 0
	}
	p.b = p.b[n:]
	return v
}

func (p *payloadReader) uint32() uint32 {
	v := p.uvarint()
	if v > 1<<32-1 && p.err == nil {
		p.err = errors.New("a 32-bit field is out of range")
	}
	return uint32(v)
}

func (p *payloadReader) varint() int64 {
	if p.err != nil {
		return 0
	}
	v, n := binary.Varint(p.b)
	if n <= 0 {
		p.err = errShortPayload
		return 0
	}
	p.b = p.b[n:]
	return v
}

func (p *payloadReader) byte() byte {
	if p.err != nil || len(p.b) == 0 {
		p.err = errShortPayload
		return 0
	}
	c := p.b[0]
	p.b = p.b[1:]
	return c
}

func (p *payloadReader) bytes() []byte {
	n := p.uvarint()
	if p.err != nil || n > uint64(len(p.b)) {
		p.err = errShortPayload
		return nil
	}
	v := p.b[:n]
	p.b = p.b[n:]
	return v
}

func (p *payloadReader) rest() []byte {
	v := p.b
	p.b = nil
	return v
}

// decodeBinaryRecord parses the payload of a record frame of kind into r.
func decodeBinaryRecord(kind byte, payload []byte, r *meta.DumpRecord) error {
	p := payloadReader{b: payload}
	*r = meta.DumpRecord{Kind: meta.DumpKind(kind)}
	switch r.Kind {
	case meta.DumpInode:
		r.Ino = meta.Ino(p.uvarint())
		a := &r.Attr
		a.Type = meta.FileType(p.byte())
		mode := p.uvarint()
		if mode > 0xffff {
			return errors.New("mode out of range")
		}
		a.Mode = uint16(mode)
		a.Uid, a.Gid, a.Rdev, a.Nlink = p.uint32(), p.uint32(), p.uint32(), p.uint32()
		a.Length = p.uvarint()
		a.Atime, a.Mtime, a.Ctime = p.varint(), p.varint(), p.varint()
		a.Parent = meta.Ino(p.uvarint())
	case meta.DumpEntry:
		r.Ino = meta.Ino(p.uvarint())
		r.Name = string(p.bytes())
		r.Child = meta.Ino(p.uvarint())
		r.Type = meta.FileType(p.byte())
	case meta.DumpSymlink:
		r.Ino = meta.Ino(p.uvarint())
		r.Target = string(p.rest())
	case meta.DumpXattr:
		r.Ino = meta.Ino(p.uvarint())
		r.Name = string(p.bytes())
		r.Value = append([]byte{}, p.rest()...)
	case meta.DumpChunk:
		r.Ino = meta.Ino(p.uvarint())
		r.Index = p.uint32()
		n := p.uvarint()
		if n > uint64(len(payload)) {
			return errShortPayload
		}
		r.Slices = make([]meta.Slice, n)
		for i := range r.Slices {
			r.Slices[i] = meta.Slice{Pos: p.uint32(), ID: p.uvarint(), Size: p.uint32(), Off: p.uint32(), Len: p.uint32()}
		}
	case meta.DumpDeadSlice:
		r.Slice = meta.DeadSlice{ID: p.uvarint(), Size: p.uint32()}
	case meta.DumpQuota:
		r.Ino = meta.Ino(p.uvarint())
		r.Quota = meta.Quota{MaxSpace: p.varint(), MaxInodes: p.varint(), Space: p.varint(), Inodes: p.varint()}
	case meta.DumpDirStat:
		r.Ino = meta.Ino(p.uvarint())
		r.DirStat = meta.DirStat{Space: p.varint(), Inodes: p.varint()}
	default:
		return fmt.Errorf("unknown record kind %d", kind)
	}
	if p.err != nil {
		return p.err
	}
	if len(p.b) > 0 {
		return fmt.Errorf("%d bytes left over after the record", len(p.b))
	}
	return nil
}
