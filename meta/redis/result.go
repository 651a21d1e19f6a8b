package redis

import (
	"fmt"

	"cairn/meta"
)

// Helpers reading what scripts return: arrays of integers and packed
// records.

func resultList(r any, n int) ([]any, error) {
	list, ok := r.([]any)
	if !ok || len(list) < n {
		return nil, fmt.Errorf("unexpected script result %T (%v): %w", r, r, meta.ErrIO)
	}
	return list, nil
}

func resultAttr(r any) (meta.Attr, error) {
	s, ok := r.(string)
	if !ok {
		return meta.Attr{}, fmt.Errorf("unexpected script result %T, want attributes: %w", r, meta.ErrIO)
	}
	return decodeAttr(s)
}

func resultInt(r any) (int64, error) {
	n, ok := r.(int64)
	if !ok {
		return 0, fmt.Errorf("unexpected script result %T, want an integer: %w", r, meta.ErrIO)
	}
	return n, nil
}

// inoAttr reads {ino, attr}.
func inoAttr(r any) (meta.Ino, meta.Attr, error) {
	list, err := resultList(r, 2)
	if err != nil {
		return 0, meta.Attr{}, err
	}
	ino, err := resultInt(list[0])
	if err != nil {
		return 0, meta.Attr{}, err
	}
	a, err := resultAttr(list[1])
	return meta.Ino(ino), a, err
}
