package fuse

import (
	"testing"

	"cairn/meta"
)

func TestPageCacheKeptOnlyWhenUnchanged(t *testing.T) {
	var c pageCache
	a := meta.Attr{Type: meta.TypeFile, Length: 10, Mtime: 100, Ctime: 100}
	if c.open(1, a) {
		t.Error("first open kept a cache it never filled")
	}
	if !c.open(1, a) {
		t.Error("unchanged file: cache dropped")
	}
	for _, change := range []func(*meta.Attr){
		func(a *meta.Attr) { a.Length++ },
		func(a *meta.Attr) { a.Mtime++ },
		func(a *meta.Attr) { a.Ctime++ },
	} {
		b := a
		change(&b)
		if c.open(1, b) {
			t.Errorf("changed file %+v: cache kept", b)
		}
		a = b
		if !c.open(1, a) {
			t.Errorf("unchanged since the last open %+v: cache dropped", a)
		}
	}
	if c.open(2, a) {
		t.Error("another inode kept the cache of the first")
	}
	if c.open(3, meta.Attr{Type: meta.TypeDirectory}) || c.open(3, meta.Attr{Type: meta.TypeDirectory}) {
		t.Error("kept the cache of a directory")
	}
}

func TestPageCacheBounded(t *testing.T) {
	var c pageCache
	a := meta.Attr{Type: meta.TypeFile}
	for i := 0; i < maxSeen+10; i++ {
		c.open(meta.Ino(i+1), a)
	}
	if len(c.seen) > maxSeen {
		t.Errorf("remembers %d files, more than %d", len(c.seen), maxSeen)
	}
}
