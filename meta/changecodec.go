package meta

import (
	"encoding/binary"
	"fmt"
)

// EncodeChange is the stored form of a change without its sequence number
// (engines keep that as the record's key): the kind, then the session, the
// operation, the inode count and the inodes as unsigned varints.
func EncodeChange(c *Change) []byte {
	b := make([]byte, 0, 1+3*binary.MaxVarintLen64+len(c.Inodes)*4)
	b = append(b, byte(c.Kind))
	b = binary.AppendUvarint(b, c.Session)
	b = binary.AppendUvarint(b, c.Operation)
	b = binary.AppendUvarint(b, uint64(len(c.Inodes)))
	for _, ino := range c.Inodes {
		b = binary.AppendUvarint(b, uint64(ino))
	}
	return b
}

// DecodeChange reads a change EncodeChange stored under number seq.
func DecodeChange(seq uint64, b []byte) (Change, error) {
	c := Change{Seq: seq}
	if len(b) == 0 {
		return c, fmt.Errorf("change %d: empty record", seq)
	}
	c.Kind, b = ChangeKind(b[0]), b[1:]
	var fields [3]uint64
	for i := range fields {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return c, fmt.Errorf("change %d: truncated record", seq)
		}
		fields[i], b = v, b[n:]
	}
	c.Session, c.Operation = fields[0], fields[1]
	if fields[2] > MaxChangeInodes {
		return c, fmt.Errorf("change %d: %d inodes, more than %d", seq, fields[2], MaxChangeInodes)
	}
	for range fields[2] {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return c, fmt.Errorf("change %d: truncated record", seq)
		}
		c.Inodes, b = append(c.Inodes, Ino(v)), b[n:]
	}
	if len(b) != 0 {
		return c, fmt.Errorf("change %d: %d bytes after the record", seq, len(b))
	}
	return c, nil
}
