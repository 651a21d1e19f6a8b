package metrics

import (
	"errors"
	"syscall"

	"golang.org/x/sys/unix"
)

// latencyBuckets are the upper bounds, in seconds, of the latency
// histograms: powers of four microseconds from 16 µs to about 17 s,
// matching (every second bound of) the power-of-two buckets the VFS
// records FUSE requests in, so that every cairn histogram can be read
// against the same scale.
var latencyBuckets = func() []float64 {
	var b []float64
	for exp := latencyFirstExponent; exp <= latencyLastExponent; exp += 2 {
		b = append(b, float64(uint64(1)<<exp)/1e6)
	}
	return b
}()

const (
	latencyFirstExponent = 4  // 2^4 µs = 16 µs
	latencyLastExponent  = 24 // 2^24 µs ≈ 16.8 s
)

// errorLabel names an error for the "error" label: the errno's name
// (ENOENT, EIO, ...) when the chain holds one, else a short class.
func errorLabel(err error, classes ...errorClass) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		if name := unix.ErrnoName(errno); name != "" {
			return name
		}
	}
	for _, c := range classes {
		if errors.Is(err, c.err) {
			return c.label
		}
	}
	return "other"
}

// errorClass labels the errors that are errors.Is(err).
type errorClass struct {
	err   error
	label string
}
