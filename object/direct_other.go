//go:build !linux

package object

import (
	"errors"
	"os"
)

var errNoDirect = errors.New("O_DIRECT is used on Linux only")

// readDirect is Linux only; elsewhere Get reads through the page cache.
func readDirect(fh *os.File, size int64) ([]byte, error) { return nil, errNoDirect }
