package main

import "testing"

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
