package main

import (
	"fmt"
	"strconv"
	"strings"
)

// byteSize is a flag holding a number of bytes, written as a plain number or
// with a binary suffix: 4M, 4MiB, 4MB and 4194304 all mean 4 MiB (every
// suffix is a power of 1024).
type byteSize uint64

func (b *byteSize) String() string { return strconv.FormatUint(uint64(*b), 10) }

// Type names the value in help: --cache-size size.
func (b *byteSize) Type() string { return "size" }

func (b *byteSize) Set(s string) error {
	v, err := parseByteSize(s)
	if err != nil {
		return err
	}
	*b = byteSize(v)
	return nil
}

// parseByteSize reads "512", "64K", "4MiB", "1.5G", "2TB".
func parseByteSize(s string) (uint64, error) {
	t := strings.TrimSpace(s)
	upper := strings.ToUpper(t)
	upper = strings.TrimSuffix(upper, "IB")
	upper = strings.TrimSuffix(upper, "B")
	shift := 0
	if n := len(upper); n > 0 {
		switch upper[n-1] {
		case 'K':
			shift = 10
		case 'M':
			shift = 20
		case 'G':
			shift = 30
		case 'T':
			shift = 40
		case 'P':
			shift = 50
		}
		if shift > 0 {
			upper = upper[:n-1]
		}
	}
	if upper == "" {
		return 0, fmt.Errorf("invalid size %q: want a number of bytes, optionally with K, M, G, T or P (e.g. 4M)", s)
	}
	if n, err := strconv.ParseUint(upper, 10, 64); err == nil {
		if shift > 0 && n > (^uint64(0))>>shift {
			return 0, fmt.Errorf("size %q is too large", s)
		}
		return n << shift, nil
	}
	f, err := strconv.ParseFloat(upper, 64)
	if err != nil || f < 0 || f != f {
		return 0, fmt.Errorf("invalid size %q: want a number of bytes, optionally with K, M, G, T or P (e.g. 4M)", s)
	}
	v := f * float64(uint64(1)<<shift)
	if v >= 1<<64 {
		return 0, fmt.Errorf("size %q is too large", s)
	}
	return uint64(v), nil
}

// humanBytes writes n with the largest binary unit that keeps it readable.
func humanBytes(n uint64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	v, i := float64(n), 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%d B", n)
	}
	if v == float64(uint64(v)) {
		return fmt.Sprintf("%d %s", uint64(v), units[i])
	}
	return fmt.Sprintf("%.1f %s", v, units[i])
}

// minBudget is the least a cache, a buffer or a volume's capacity may be
// (0 aside: none, or no limit): anything smaller
// is almost certainly a number meant in MiB or GiB (JuiceFS reads
// --cache-size 102400 as 100 GiB) that cairn, like most Unix tools, reads
// as bytes.
const minBudget = 1 << 20

// checkBudget refuses a size under minBudget other than 0, saying how to
// write what was probably meant.
func checkBudget(flag string, v byteSize) error {
	if v != 0 && v < minBudget {
		return fmt.Errorf("--%s %d is only %s, almost certainly a mistake: a number without a unit is bytes; give the unit, e.g. --%s %dG", flag, uint64(v), humanBytes(uint64(v)), flag, max(1, uint64(v)/1024))
	}
	return nil
}
