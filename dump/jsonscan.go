package dump

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"cairn/meta"
)

// jsonScanner parses one record line of the JSON form: a flat object whose
// values are numbers, strings, or (for slices) arrays of arrays of
// numbers. It is the hot loop of a load, several times faster than
// encoding/json for these lines; anything it does not expect is an error.
type jsonScanner struct {
	b []byte
	i int
}

var errSyntax = errors.New("not a valid record (malformed JSON)")

func (s *jsonScanner) space() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\r' || s.b[s.i] == '\n') {
		s.i++
	}
}

// take consumes c after optional white space.
func (s *jsonScanner) take(c byte) bool {
	s.space()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// text reads a JSON string. Without escapes (the usual case) it returns
// the bytes between the quotes, a part of the line that is valid only as
// long as the line is; with escapes, a decoded copy.
func (s *jsonScanner) text() ([]byte, error) {
	s.space()
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, errSyntax
	}
	start := s.i
	s.i++
	escaped := false
	for s.i < len(s.b) {
		switch c := s.b[s.i]; {
		case c == '\\':
			escaped = true
			s.i += 2
			continue
		case c == '"':
			s.i++
			if !escaped {
				return s.b[start+1 : s.i-1], nil
			}
			var out string
			if err := json.Unmarshal(s.b[start:s.i], &out); err != nil {
				return nil, errSyntax
			}
			return []byte(out), nil
		case c < 0x20:
			return nil, errSyntax
		}
		s.i++
	}
	return nil, errSyntax
}

// integer reads a JSON integer within [min, max].
func (s *jsonScanner) integer(lo int64, hi uint64) (uint64, bool, error) {
	s.space()
	negative := s.i < len(s.b) && s.b[s.i] == '-'
	if negative {
		s.i++
	}
	start := s.i
	var v uint64
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		d := uint64(s.b[s.i] - '0')
		if v > (math.MaxUint64-d)/10 {
			return 0, false, errors.New("number out of range")
		}
		v = v*10 + d
		s.i++
	}
	if s.i == start || (s.i < len(s.b) && (s.b[s.i] == '.' || s.b[s.i] == 'e' || s.b[s.i] == 'E')) {
		return 0, false, errSyntax
	}
	if negative {
		if lo >= 0 || v > uint64(-(lo+1))+1 {
			return 0, false, errors.New("number out of range")
		}
	} else if v > hi {
		return 0, false, errors.New("number out of range")
	}
	return v, negative, nil
}

func (s *jsonScanner) unsigned(hi uint64) (uint64, error) {
	v, _, err := s.integer(0, hi)
	return v, err
}

func (s *jsonScanner) signed() (int64, error) {
	v, negative, err := s.integer(math.MinInt64, math.MaxInt64)
	if negative {
		return -int64(v-1) - 1, err
	}
	return int64(v), err
}

func (s *jsonScanner) base64() ([]byte, error) {
	text, err := s.text()
	if err != nil {
		return nil, err
	}
	b := make([]byte, base64.StdEncoding.DecodedLen(len(text)))
	n, err := base64.StdEncoding.Decode(b, text)
	if err != nil {
		return nil, fmt.Errorf("bad base64: %v", err)
	}
	return b[:n], nil
}

// slices reads [[pos,id,size,off,len],...] into a new list.
func (s *jsonScanner) slices() ([]meta.Slice, error) {
	if !s.take('[') {
		return nil, errSyntax
	}
	out := []meta.Slice{}
	if s.take(']') {
		return out, nil
	}
	for {
		if !s.take('[') {
			return nil, errSyntax
		}
		var rec [5]uint64
		for j := range rec {
			if j > 0 && !s.take(',') {
				return nil, errSyntax
			}
			v, err := s.unsigned(math.MaxUint64)
			if err != nil {
				return nil, err
			}
			rec[j] = v
		}
		if !s.take(']') {
			return nil, errSyntax
		}
		if rec[0] > meta.ChunkSize || rec[2] > math.MaxUint32 || rec[3] > math.MaxUint32 || rec[4] > meta.ChunkSize {
			return nil, fmt.Errorf("slice %d of the chunk is out of range", len(out))
		}
		out = append(out, meta.Slice{Pos: uint32(rec[0]), ID: rec[1], Size: uint32(rec[2]), Off: uint32(rec[3]), Len: uint32(rec[4])})
		if s.take(']') {
			return out, nil
		}
		if !s.take(',') {
			return nil, errSyntax
		}
	}
}

// scanJSONLine fills l from one line; a field it does not know is an
// error. l's text fields point into line.
func scanJSONLine(line []byte, l *jsonLine) error {
	s := &jsonScanner{b: line}
	if !s.take('{') {
		return errSyntax
	}
	if s.take('}') {
		return nil
	}
	for {
		key, err := s.text()
		if err != nil {
			return err
		}
		if !s.take(':') {
			return errSyntax
		}
		u32 := func(p *uint32) error {
			v, err := s.unsigned(math.MaxUint32)
			*p = uint32(v)
			return err
		}
		u64 := func(p *optional) error {
			v, err := s.unsigned(math.MaxUint64)
			*p = optional{v, true}
			return err
		}
		switch string(key) {
		case "kind":
			l.Kind, err = s.text()
		case "ino":
			err = u64(&l.Ino)
		case "parent":
			err = u64(&l.Parent)
		case "type":
			l.Type, err = s.text()
		case "mode":
			l.Mode, err = s.text()
		case "uid":
			err = u32(&l.Uid)
		case "gid":
			err = u32(&l.Gid)
		case "rdev":
			err = u32(&l.Rdev)
		case "nlink":
			err = u32(&l.Nlink)
		case "length":
			l.Length, err = s.unsigned(math.MaxUint64)
		case "atime":
			l.Atime, err = s.signed()
		case "mtime":
			l.Mtime, err = s.signed()
		case "ctime":
			l.Ctime, err = s.signed()
		case "name":
			l.Name, err = s.text()
		case "name64":
			l.Name64, err = s.base64()
		case "target":
			l.Target, err = s.text()
		case "target64":
			l.Target64, err = s.base64()
		case "value":
			l.Value, err = s.base64()
		case "index":
			err = u32(&l.Index)
		case "slices":
			l.Slices, err = s.slices()
		case "id":
			l.ID, err = s.unsigned(math.MaxUint64)
		case "size":
			err = u32(&l.Size)
		case "records":
			err = u64(&l.Records)
		case "max_space":
			l.MaxSpace, err = s.signed()
		case "max_inodes":
			l.MaxInodes, err = s.signed()
		case "space":
			l.Space, err = s.signed()
		case "inodes":
			l.Inodes, err = s.signed()
		default:
			return fmt.Errorf("unknown field %q", key)
		}
		if err != nil {
			return fmt.Errorf("field %q: %w", key, err)
		}
		if s.take('}') {
			s.space()
			if s.i != len(s.b) {
				return errors.New("more than one JSON value on the line")
			}
			return nil
		}
		if !s.take(',') {
			return errSyntax
		}
	}
}
