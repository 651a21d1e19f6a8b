package meta

import (
	"reflect"
	"testing"
)

func TestChangeCodec(t *testing.T) {
	for _, c := range []Change{
		{Kind: ChangeBefore, Session: 1, Operation: 1},
		{Kind: ChangeAfter, Session: 1 << 40, Operation: 1<<64 - 1, Inodes: []Ino{1, 2, 1 << 50}},
		{Kind: ChangeAck, Session: 7, Operation: 3, Inodes: make([]Ino, MaxChangeInodes)},
	} {
		b := EncodeChange(&c)
		got, err := DecodeChange(42, b)
		c.Seq = 42
		if err != nil || !reflect.DeepEqual(got, c) {
			t.Errorf("DecodeChange(EncodeChange(%+v)) = %+v, %v", c, got, err)
		}
		for cut := range len(b) {
			if _, err := DecodeChange(42, b[:cut]); err == nil {
				t.Errorf("DecodeChange of %+v cut at %d bytes: no error", c, cut)
			}
		}
		if _, err := DecodeChange(42, append(b, 0)); err == nil {
			t.Errorf("DecodeChange of %+v with a trailing byte: no error", c)
		}
	}
}
