//go:build !linux

// Package directio is Linux only; elsewhere every call reports ErrRefused
// and callers use ordinary I/O.
package directio

import (
	"errors"
	"os"
)

// Align is the alignment O_DIRECT would want.
const Align = 4096

// Min is the smallest transfer worth O_DIRECT, where it is used.
const Min = 64 << 10

// ErrRefused: O_DIRECT is used on Linux only.
var ErrRefused = errors.New("O_DIRECT is used on Linux only")

// Aligned is false: nothing is written with O_DIRECT here.
func Aligned(b []byte) bool { return false }

// ReadAll reports ErrRefused.
func ReadAll(fh *os.File, size int64) ([]byte, error) { return nil, ErrRefused }

// Set reports ErrRefused.
func Set(f *os.File, on bool) error { return ErrRefused }
