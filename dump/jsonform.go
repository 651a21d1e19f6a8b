package dump

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"cairn/meta"
)

// jsonEncoder writes the JSON form, one record per line, by hand: it is
// the hot loop of a dump, and the field order stays the documented one.
type jsonEncoder struct{}

func (jsonEncoder) header(b []byte, h header) ([]byte, error) {
	js, err := json.Marshal(h)
	if err != nil {
		return b, fmt.Errorf("encode header: %w", err)
	}
	return append(append(b, js...), '\n'), nil
}

func (jsonEncoder) trailer(b []byte, records uint64) []byte {
	b = append(b, `{"kind":"end","records":`...)
	b = strconv.AppendUint(b, records, 10)
	return append(b, "}\n"...)
}

func (jsonEncoder) record(b []byte, r *meta.DumpRecord) []byte {
	switch r.Kind {
	case meta.DumpInode:
		a := &r.Attr
		b = appendUint(append(b, `{"kind":"inode","ino":`...), uint64(r.Ino))
		b = append(append(append(b, `,"type":"`...), typeName(a.Type)...), '"')
		b = append(b, `,"mode":"`...)
		b = appendOctal(b, a.Mode)
		b = appendUint(append(b, `","uid":`...), uint64(a.Uid))
		b = appendUint(append(b, `,"gid":`...), uint64(a.Gid))
		b = appendUint(append(b, `,"rdev":`...), uint64(a.Rdev))
		b = appendUint(append(b, `,"nlink":`...), uint64(a.Nlink))
		b = appendUint(append(b, `,"length":`...), a.Length)
		b = strconv.AppendInt(append(b, `,"atime":`...), a.Atime, 10)
		b = strconv.AppendInt(append(b, `,"mtime":`...), a.Mtime, 10)
		b = strconv.AppendInt(append(b, `,"ctime":`...), a.Ctime, 10)
		b = appendUint(append(b, `,"parent":`...), uint64(a.Parent))
	case meta.DumpEntry:
		b = appendUint(append(b, `{"kind":"entry","parent":`...), uint64(r.Ino))
		b = appendText(append(b, ','), "name", r.Name)
		b = appendUint(append(b, `,"ino":`...), uint64(r.Child))
		b = append(append(append(b, `,"type":"`...), typeName(r.Type)...), '"')
	case meta.DumpSymlink:
		b = appendUint(append(b, `{"kind":"symlink","ino":`...), uint64(r.Ino))
		b = appendText(append(b, ','), "target", r.Target)
	case meta.DumpXattr:
		b = appendUint(append(b, `{"kind":"xattr","ino":`...), uint64(r.Ino))
		b = appendText(append(b, ','), "name", r.Name)
		b = append(b, `,"value":"`...)
		b = base64.StdEncoding.AppendEncode(b, r.Value)
		b = append(b, '"')
	case meta.DumpChunk:
		b = appendUint(append(b, `{"kind":"chunk","ino":`...), uint64(r.Ino))
		b = appendUint(append(b, `,"index":`...), uint64(r.Index))
		b = append(b, `,"slices":[`...)
		for i, s := range r.Slices {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendUint(append(b, '['), uint64(s.Pos))
			b = appendUint(append(b, ','), s.ID)
			b = appendUint(append(b, ','), uint64(s.Size))
			b = appendUint(append(b, ','), uint64(s.Off))
			b = appendUint(append(b, ','), uint64(s.Len))
			b = append(b, ']')
		}
		b = append(b, ']')
	case meta.DumpDeadSlice:
		b = appendUint(append(b, `{"kind":"dead_slice","id":`...), r.Slice.ID)
		b = appendUint(append(b, `,"size":`...), uint64(r.Slice.Size))
	case meta.DumpQuota:
		q := &r.Quota
		b = appendUint(append(b, `{"kind":"quota","ino":`...), uint64(r.Ino))
		b = strconv.AppendInt(append(b, `,"max_space":`...), q.MaxSpace, 10)
		b = strconv.AppendInt(append(b, `,"max_inodes":`...), q.MaxInodes, 10)
		b = strconv.AppendInt(append(b, `,"space":`...), q.Space, 10)
		b = strconv.AppendInt(append(b, `,"inodes":`...), q.Inodes, 10)
	case meta.DumpDirStat:
		b = appendUint(append(b, `{"kind":"dir_stat","ino":`...), uint64(r.Ino))
		b = strconv.AppendInt(append(b, `,"space":`...), r.DirStat.Space, 10)
		b = strconv.AppendInt(append(b, `,"inodes":`...), r.DirStat.Inodes, 10)
	}
	return append(b, "}\n"...)
}

func appendUint(b []byte, v uint64) []byte { return strconv.AppendUint(b, v, 10) }

// appendOctal writes a mode as at least four octal digits, like chmod's.
func appendOctal(b []byte, mode uint16) []byte {
	var digits [8]byte
	d := strconv.AppendUint(digits[:0], uint64(mode), 8)
	for i := len(d); i < 4; i++ {
		b = append(b, '0')
	}
	return append(b, d...)
}

// appendText writes "key":"s", or "key64":"base64 of s" when s is not
// valid UTF-8 (file names are bytes, JSON strings are text).
func appendText(b []byte, key, s string) []byte {
	if !utf8.ValidString(s) {
		b = append(append(append(b, '"'), key...), `64":"`...)
		b = base64.StdEncoding.AppendEncode(b, []byte(s))
		return append(b, '"')
	}
	b = append(append(append(b, '"'), key...), `":"`...)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			b = append(b, `\u00`...)
			b = append(b, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&15])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// jsonLine is every field a JSON line may have; kind says which are used.
// The text fields (Kind, Type, Mode, Name, Target) point into the line
// being decoded.
type jsonLine struct {
	Kind     []byte
	Ino      optional
	Parent   optional
	Type     []byte
	Mode     []byte
	Uid      uint32
	Gid      uint32
	Rdev     uint32
	Nlink    uint32
	Length   uint64
	Atime    int64
	Mtime    int64
	Ctime    int64
	Name     []byte
	Name64   []byte
	Target   []byte
	Target64 []byte
	Value    []byte
	Index    uint32
	Slices   []meta.Slice
	ID       uint64
	Size     uint32
	Records  optional
	// Quotas and directory statistics.
	MaxSpace  int64
	MaxInodes int64
	Space     int64
	Inodes    int64
}

// optional is a number a record must have: set says the line gave it.
type optional struct {
	value uint64
	set   bool
}

// decodeJSONLine parses one record line into r, or reports the trailer's
// record count (end true).
func decodeJSONLine(line []byte, r *meta.DumpRecord) (end bool, records uint64, err error) {
	var l jsonLine
	if err := scanJSONLine(line, &l); err != nil {
		return false, 0, err
	}
	if string(l.Kind) == "end" {
		if !l.Records.set {
			return false, 0, errors.New(`end record without "records"`)
		}
		return true, l.Records.value, nil
	}
	kind, ok := parseKind(l.Kind)
	if !ok {
		return false, 0, fmt.Errorf("unknown record kind %q", l.Kind)
	}
	*r = meta.DumpRecord{Kind: kind}
	need := func(p optional, field string) (uint64, error) {
		if !p.set {
			return 0, fmt.Errorf("%s record without %q", l.Kind, field)
		}
		return p.value, nil
	}
	text := func(s, b64 []byte, field string) (string, error) {
		switch {
		case s != nil:
			return string(s), nil
		case b64 != nil:
			return string(b64), nil
		}
		return "", fmt.Errorf("%s record without %q", l.Kind, field)
	}
	var v uint64
	switch kind {
	case meta.DumpInode:
		if v, err = need(l.Ino, "ino"); err != nil {
			return
		}
		r.Ino = meta.Ino(v)
		if r.Attr.Type, err = parseType(l.Type); err != nil {
			return
		}
		mode, ok := parseOctal(l.Mode)
		if !ok {
			return false, 0, fmt.Errorf("mode %q is not an octal number", l.Mode)
		}
		r.Attr = meta.Attr{Type: r.Attr.Type, Mode: mode, Uid: l.Uid, Gid: l.Gid, Rdev: l.Rdev, Nlink: l.Nlink,
			Length: l.Length, Atime: l.Atime, Mtime: l.Mtime, Ctime: l.Ctime, Parent: meta.Ino(l.Parent.value)}
	case meta.DumpEntry:
		if v, err = need(l.Parent, "parent"); err != nil {
			return
		}
		r.Ino = meta.Ino(v)
		if v, err = need(l.Ino, "ino"); err != nil {
			return
		}
		r.Child = meta.Ino(v)
		if r.Name, err = text(l.Name, l.Name64, "name"); err != nil {
			return
		}
		if r.Type, err = parseType(l.Type); err != nil {
			return
		}
	case meta.DumpSymlink:
		if v, err = need(l.Ino, "ino"); err != nil {
			return
		}
		r.Ino = meta.Ino(v)
		if r.Target, err = text(l.Target, l.Target64, "target"); err != nil {
			return
		}
	case meta.DumpXattr:
		if v, err = need(l.Ino, "ino"); err != nil {
			return
		}
		r.Ino = meta.Ino(v)
		if r.Name, err = text(l.Name, l.Name64, "name"); err != nil {
			return
		}
		r.Value = l.Value
		if r.Value == nil {
			r.Value = []byte{}
		}
	case meta.DumpChunk:
		if v, err = need(l.Ino, "ino"); err != nil {
			return
		}
		r.Ino = meta.Ino(v)
		r.Index = l.Index
		r.Slices = l.Slices
		if r.Slices == nil {
			r.Slices = []meta.Slice{}
		}
	case meta.DumpDeadSlice:
		r.Slice = meta.DeadSlice{ID: l.ID, Size: l.Size}
	case meta.DumpQuota, meta.DumpDirStat:
		if v, err = need(l.Ino, "ino"); err != nil {
			return
		}
		r.Ino = meta.Ino(v)
		r.DirStat = meta.DirStat{Space: l.Space, Inodes: l.Inodes}
		if kind == meta.DumpQuota {
			r.DirStat = meta.DirStat{}
			r.Quota = meta.Quota{MaxSpace: l.MaxSpace, MaxInodes: l.MaxInodes, Space: l.Space, Inodes: l.Inodes}
		}
	}
	return false, 0, nil
}

// parseOctal reads a mode of one or more octal digits.
func parseOctal(digits []byte) (uint16, bool) {
	var v uint32
	for _, c := range digits {
		if c < '0' || c > '7' {
			return 0, false
		}
		if v = v<<3 | uint32(c-'0'); v > math.MaxUint16 {
			return 0, false
		}
	}
	return uint16(v), len(digits) > 0
}
