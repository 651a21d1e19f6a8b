package main

import (
	"strings"
	"testing"
	"time"
)

func TestParseByteSize(t *testing.T) {
	good := []struct {
		in   string
		want uint64
	}{
		{"0", 0}, {"4096", 4096}, {"1048576", 1 << 20}, {"64K", 64 << 10}, {"64k", 64 << 10},
		{"4M", 4 << 20}, {"4MiB", 4 << 20}, {"4MB", 4 << 20}, {"4mib", 4 << 20}, {"1G", 1 << 30},
		{"2T", 2 << 40}, {"1.5G", 3 << 29}, {"512B", 512}, {" 8M ", 8 << 20},
	}
	for _, c := range good {
		got, err := parseByteSize(c.in)
		if err != nil || got != c.want {
			t.Errorf("parseByteSize(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"", "M", "4Q", "-1", "-4M", "four", "1e400", "NaN", "99999999999P", "4 M B"} {
		if got, err := parseByteSize(in); err == nil {
			t.Errorf("parseByteSize(%q) = %d, want an error", in, got)
		}
	}
}

func TestHumanBytes(t *testing.T) {
	for _, c := range []struct {
		n    uint64
		want string
	}{{0, "0 B"}, {1023, "1023 B"}, {4 << 20, "4 MiB"}, {1536, "1.5 KiB"}, {5 << 30, "5 GiB"}} {
		if got := humanBytes(c.n); got != c.want {
			t.Errorf("humanBytes(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

// TestCheckBudget: a cache or buffer under 1 MiB is refused with a hint
// at the unit; 0 and real sizes pass.
func TestCheckBudget(t *testing.T) {
	for _, c := range []struct {
		v    byteSize
		want string // "" when accepted
	}{
		{0, ""}, {1 << 20, ""}, {100 << 30, ""},
		{102400, "--cache-size 102400 is only 100 KiB"}, {1, "e.g. --cache-size 1G"}, {1<<20 - 1, "unit"},
	} {
		err := checkBudget("cache-size", c.v)
		if (err == nil) != (c.want == "") || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("checkBudget(%d) = %v, want %q", c.v, err, c.want)
		}
	}
}

func TestHumanDuration(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{time.Second, "1s"}, {time.Minute, "1m"}, {time.Hour, "1h"}, {90 * time.Minute, "1h30m"},
		{1500 * time.Millisecond, "1.5s"}, {0, "0s"}, {time.Hour + time.Second, "1h0m1s"},
	} {
		if got := humanDuration(c.d); got != c.want {
			t.Errorf("humanDuration(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}
