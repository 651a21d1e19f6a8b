package kv

import (
	"strings"
	"testing"
)

func TestEtcdCacheBounds(t *testing.T) {
	c := newEtcdCache(100)
	c.put("a", cachedValue{[]byte(strings.Repeat("x", 40)), 5})
	c.put("a", cachedValue{[]byte("old"), 3}) // an older revision does not replace a newer one
	if v, ok := c.get("a"); !ok || v.rev != 5 {
		t.Fatalf("a = %+v, %v", v, ok)
	}
	c.put("big", cachedValue{make([]byte, etcdCacheValueMax+1), 6})
	if _, ok := c.get("big"); ok {
		t.Fatal("a value over the limit was cached")
	}
	c.put("b", cachedValue{[]byte(strings.Repeat("y", 40)), 7})
	c.put("c", cachedValue{[]byte(strings.Repeat("z", 40)), 8}) // over 100 bytes: starts afresh
	if _, ok := c.get("a"); ok {
		t.Fatal("the cache grew past its bound")
	}
	if v, ok := c.get("c"); !ok || v.rev != 8 || c.bytes != 41 {
		t.Fatalf("c = %+v, %v; %d bytes held", v, ok, c.bytes)
	}
	v, _ := c.get("c")
	v.value[0] = 'Q' // what get returns is the caller's
	if w, _ := c.get("c"); w.value[0] != 'z' {
		t.Fatal("get handed out the cached bytes themselves")
	}
	c.drop("c")
	if _, ok := c.get("c"); ok || c.bytes != 0 {
		t.Fatalf("drop left %d bytes", c.bytes)
	}
}
