package accesslog

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Record is one request as the access log writes it.
type Record struct {
	Time          time.Time
	Uid, Gid, Pid uint32
	Op            string // the FUSE operation: lookup, getattr, read, ...
	// Args are the request's arguments as the log writes them: the inode
	// first, then for requests on a name the name in Go's quoted form,
	// then what else the request carries (e.g. "5,\"a.txt\"" or
	// "7,fh=3,off=0,size=4096").
	Args     string
	Result   string // "OK", or the errno's name, with what the reply carried (e.g. "OK ino=9")
	Duration time.Duration
}

// timeLayout is how a line starts: the request's arrival, UTC, to the
// microsecond.
const timeLayout = "2006-01-02T15:04:05.000000Z"

// Append appends r as one line, newline included:
//
//	2026-11-24T05:50:01.123456Z [uid:1000,gid:1000,pid:4242] lookup (1,"a.txt"): ENOENT <0.000123>
func (r *Record) Append(b []byte) []byte {
	b = r.Time.UTC().AppendFormat(b, timeLayout)
	b = append(b, " [uid:"...)
	b = strconv.AppendUint(b, uint64(r.Uid), 10)
	b = append(b, ",gid:"...)
	b = strconv.AppendUint(b, uint64(r.Gid), 10)
	b = append(b, ",pid:"...)
	b = strconv.AppendUint(b, uint64(r.Pid), 10)
	b = append(b, "] "...)
	b = append(b, r.Op...)
	b = append(b, " ("...)
	b = append(b, r.Args...)
	b = append(b, "): "...)
	b = append(b, r.Result...)
	b = append(b, " <"...)
	b = strconv.AppendFloat(b, r.Duration.Seconds(), 'f', 6, 64)
	return append(b, ">\n"...)
}

// ErrNotRecord is returned by Parse for a line that is no request: a
// comment (such as the note that lines were dropped) or something that is
// not an access log at all.
var ErrNotRecord = errors.New("not an access log line")

// Parse reads one line written by Append (without or with its newline).
func Parse(line string) (Record, error) {
	var r Record
	line = strings.TrimRight(line, "\r\n")
	if line == "" || line[0] == '#' {
		return r, ErrNotRecord
	}
	stamp, rest, ok := strings.Cut(line, " [")
	if !ok {
		return r, fmt.Errorf("%w: %q", ErrNotRecord, line)
	}
	t, err := time.Parse(timeLayout, stamp)
	if err != nil {
		return r, fmt.Errorf("%w: bad time %q", ErrNotRecord, stamp)
	}
	r.Time = t
	who, rest, ok := strings.Cut(rest, "] ")
	if !ok {
		return r, fmt.Errorf("%w: %q", ErrNotRecord, line)
	}
	if _, err := fmt.Sscanf(who, "uid:%d,gid:%d,pid:%d", &r.Uid, &r.Gid, &r.Pid); err != nil {
		return r, fmt.Errorf("%w: bad caller %q", ErrNotRecord, who)
	}
	op, rest, ok := strings.Cut(rest, " (")
	if !ok || op == "" {
		return r, fmt.Errorf("%w: %q", ErrNotRecord, line)
	}
	r.Op = op
	// A name may hold anything, "): " too; the result and the duration
	// never do, so the last separators are the right ones.
	open := strings.LastIndex(rest, " <")
	if open < 0 || !strings.HasSuffix(rest, ">") {
		return r, fmt.Errorf("%w: no duration in %q", ErrNotRecord, line)
	}
	seconds, err := strconv.ParseFloat(rest[open+2:len(rest)-1], 64)
	if err != nil || seconds < 0 {
		return r, fmt.Errorf("%w: bad duration in %q", ErrNotRecord, line)
	}
	r.Duration = time.Duration(seconds * float64(time.Second))
	rest = rest[:open]
	cut := strings.LastIndex(rest, "): ")
	if cut < 0 {
		return r, fmt.Errorf("%w: no result in %q", ErrNotRecord, line)
	}
	r.Args, r.Result = rest[:cut], rest[cut+3:]
	return r, nil
}

// Failed tells whether the request failed (its result is an errno).
func (r *Record) Failed() bool {
	return r.Result != "OK" && !strings.HasPrefix(r.Result, "OK ")
}

// Target is what the request was about, for summing up by path: the
// inode, or for a request on a name, the directory's inode and the name
// ("1/a.txt").
func (r *Record) Target() string {
	ino, rest, _ := strings.Cut(r.Args, ",")
	if strings.HasPrefix(rest, `"`) {
		if name, err := strconv.QuotedPrefix(rest); err == nil {
			if unquoted, err := strconv.Unquote(name); err == nil {
				return ino + "/" + unquoted
			}
		}
	}
	return ino
}
