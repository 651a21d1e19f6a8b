package redis

import (
	"strings"
	"testing"
)

func TestParseURL(t *testing.T) {
	t.Setenv("REDIS_PASSWORD", "")
	t.Setenv("META_PASSWORD", "")
	cases := []struct {
		url                       string
		network, addr, user, pass string
		db                        int
		prefix                    string
		tls                       bool
	}{
		{"redis://localhost", "tcp", "localhost:6379", "", "", 0, "cairn", false},
		{"redis://h:7000/3", "tcp", "h:7000", "", "", 3, "cairn", false},
		{"redis://u:p%40ss@h/1?prefix=vol2", "tcp", "h:6379", "u", "p@ss", 1, "vol2", false},
		{"redis://:secret@[::1]:6380/0", "tcp", "[::1]:6380", "", "secret", 0, "cairn", false},
		{"rediss://h:6390/2?insecure-skip-verify=true", "tcp", "h:6390", "", "", 2, "cairn", true},
		{"unix:///run/redis.sock?db=5", "unix", "/run/redis.sock", "", "", 5, "cairn", false},
		{"unix:///run/redis.sock", "unix", "/run/redis.sock", "", "", 0, "cairn", false},
	}
	for _, c := range cases {
		got, err := parseURL(c.url)
		if err != nil {
			t.Errorf("%s: %v", c.url, err)
			continue
		}
		o := got.opts
		if o.Network != c.network || o.Addr != c.addr || o.Username != c.user || o.Password != c.pass ||
			o.DB != c.db || got.prefix != c.prefix || (o.TLSConfig != nil) != c.tls {
			t.Errorf("%s: got %s %s user %q pass %q db %d prefix %q tls %v", c.url, o.Network, o.Addr, o.Username, o.Password, o.DB, got.prefix, o.TLSConfig != nil)
		}
		if strings.Contains(got.where, c.pass) && c.pass != "" {
			t.Errorf("%s: the password shows in %q", c.url, got.where)
		}
	}
	for _, bad := range []string{
		"redis://h/x", "redis://h/-1", "unix://", "unix:///s?db=x", "redis://h/0?bogus=1",
		"rediss://h/0?insecure-skip-verify=maybe", "rediss://h/0?tls-ca-cert-file=/nonexistent",
		"rediss://h/0?tls-cert-file=/a", "memcached://h",
	} {
		if _, err := parseURL(bad); err == nil {
			t.Errorf("%s: accepted", bad)
		} else if strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error spans lines: %v", bad, err)
		}
	}
	t.Setenv("META_PASSWORD", "fromenv")
	if c, _ := parseURL("redis://h/0"); c.opts.Password != "fromenv" {
		t.Errorf("META_PASSWORD not used: %q", c.opts.Password)
	}
	t.Setenv("REDIS_PASSWORD", "redisenv")
	if c, _ := parseURL("redis://h/0"); c.opts.Password != "redisenv" {
		t.Errorf("REDIS_PASSWORD does not come before META_PASSWORD: %q", c.opts.Password)
	}
	if c, _ := parseURL("redis://:inurl@h/0"); c.opts.Password != "inurl" {
		t.Errorf("the URL's password does not come first: %q", c.opts.Password)
	}
}
