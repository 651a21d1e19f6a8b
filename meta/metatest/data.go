package metatest

import (
	"fmt"

	"cairn/meta"
)

func dataTests() []test {
	return []test{
		{"Data/WriteRead", testWriteRead},
		{"Data/WriteENOENT", testWriteMissing},
		{"Data/TruncateDown", testTruncateDown},
		{"Data/TruncateUp", testTruncateUp},
		{"Data/TruncateErrors", testTruncateErrors},
		{"Data/Fallocate", testFallocate},
		{"Data/FallocateErrors", testFallocateErrors},
		{"Data/PunchHole", testPunchHole},
		{"Data/ZeroRange", testZeroRange},
		{"Data/Compact", testCompact},
		{"Data/CompactConflict", testCompactConflict},
		{"Data/SharedSlice", testSharedSlice},
		{"Data/NoLeakAfterTruncate", testNoLeakAfterTruncate},
	}
}

func testWriteRead(x *env) {
	f := x.create(meta.RootIno, "f")
	var want []meta.Slice
	for i, r := range [][2]uint32{{0, 1000}, {500, 1000}, {100, 10}} {
		s := meta.Slice{Pos: r[0], ID: x.newSliceID(), Size: r[1] + 7, Off: 7, Len: r[1]}
		a, n, err := x.e.Write(x.ctx, f, 0, s, 1_000_000_000*int64(i+1))
		x.must(err, "Write %+v", s)
		want = append(want, s)
		if n != len(want) {
			x.t.Errorf("Write returned %d records, want %d", n, len(want))
		}
		if a.Length != 1500 && i > 0 || i == 0 && a.Length != 1000 {
			x.t.Errorf("after Write %d the length is %d", i, a.Length)
		}
		if g := x.attr(f); g != a {
			x.t.Errorf("Write returned %+v, GetAttr says %+v", a, g)
		}
	}
	if got := x.read(f, 0); fmt.Sprint(got) != fmt.Sprint(want) {
		x.t.Errorf("Read = %+v, want the records in write order %+v", got, want)
	}
	// A write in a later chunk extends the length across the gap.
	s := meta.Slice{Pos: 4096, ID: x.newSliceID(), Size: 100, Len: 100}
	a, n, err := x.e.Write(x.ctx, f, 2, s, 5)
	x.must(err, "Write to chunk 2")
	if n != 1 || a.Length != 2*meta.ChunkSize+4196 {
		x.t.Errorf("Write to chunk 2 returned %d records and length %d, want 1 and %d", n, a.Length, 2*meta.ChunkSize+4196)
	}
	if got := x.read(f, 1); len(got) != 0 {
		x.t.Errorf("Read of an unwritten chunk = %+v, want nothing", got)
	}
	if got := x.read(f, 2); len(got) != 1 || got[0] != s {
		x.t.Errorf("Read of chunk 2 = %+v, want [%+v]", got, s)
	}
	// A write inside the file keeps the length.
	a, _, err = x.e.Write(x.ctx, f, 1, meta.Slice{ID: x.newSliceID(), Size: 10, Len: 10}, 6)
	x.must(err, "Write to chunk 1")
	if a.Length != 2*meta.ChunkSize+4196 {
		x.t.Errorf("a write inside the file changed its length to %d", a.Length)
	}
	if u := x.usage(); u.Space != (2*meta.ChunkSize+4196+4095)&^4095 {
		x.t.Errorf("Usage.Space = %d for one file of length %d", u.Space, a.Length)
	}
}

func testWriteMissing(x *env) {
	_, _, err := x.e.Write(x.ctx, 999999, 0, meta.Slice{ID: x.newSliceID(), Size: 1, Len: 1}, 1)
	x.want(meta.ErrNotFound, err, "Write to a missing inode")
}

// dataEnd is the end of the last record of list that is not a hole.
func dataEnd(list []meta.Slice) uint32 {
	var end uint32
	for _, s := range meta.View(list) {
		if s.ID != 0 && s.Pos+s.Len > end {
			end = s.Pos + s.Len
		}
	}
	return end
}

// visible reports whether s is one of list's visible records, uncut.
func visible(list []meta.Slice, s meta.Slice) bool {
	for _, v := range meta.View(list) {
		if v == s {
			return true
		}
	}
	return false
}

func testTruncateDown(x *env) {
	f := x.create(meta.RootIno, "f")
	x.write(f, 0, 0, 10000)
	x.write(f, 0, 20000, 100)
	x.write(f, 1, 0, 100)
	a, err := x.e.Truncate(x.ctx, meta.RootCred, f, 5000)
	x.must(err, "Truncate")
	if a.Length != 5000 {
		x.t.Errorf("Truncate to 5000 returned length %d", a.Length)
	}
	if g := x.attr(f); g != a {
		x.t.Errorf("Truncate returned %+v, GetAttr says %+v", a, g)
	}
	if end := dataEnd(x.read(f, 0)); end > 5000 {
		x.t.Errorf("after Truncate to 5000, chunk 0 shows data up to %d: %+v", end, meta.View(x.read(f, 0)))
	}
	if end := dataEnd(x.read(f, 1)); end > 0 {
		x.t.Errorf("after Truncate to 5000, chunk 1 shows data: %+v", meta.View(x.read(f, 1)))
	}
	if u := x.usage(); u.Space != 8192 {
		x.t.Errorf("Usage.Space = %d after truncating the only file to 5000, want 8192", u.Space)
	}
	// A write past the new end must not uncover the cut bytes between.
	s := x.write(f, 0, 8000, 1000)
	if list := x.read(f, 0); !holeAt(list, 5000, 8000) {
		x.t.Errorf("after Truncate to 5000 and a write at 8000, [5000,8000) shows old data: %+v", meta.View(list))
	} else if !visible(list, s) {
		x.t.Errorf("the write at 8000 is not visible whole: %+v", meta.View(list))
	}
	_, err = x.e.Truncate(x.ctx, meta.RootCred, f, 5000)
	x.must(err, "Truncate")
	// Growing again must not bring the old bytes back.
	_, err = x.e.Truncate(x.ctx, meta.RootCred, f, meta.ChunkSize+200)
	x.must(err, "Truncate up")
	if end := dataEnd(x.read(f, 0)); end > 5000 {
		x.t.Errorf("after Truncate down to 5000 and up again, chunk 0 shows old data up to %d: %+v", end, meta.View(x.read(f, 0)))
	}
	if end := dataEnd(x.read(f, 1)); end > 0 {
		x.t.Errorf("after Truncate down and up again, chunk 1 shows old data: %+v", meta.View(x.read(f, 1)))
	}
	// Truncate to zero.
	a, err = x.e.Truncate(x.ctx, meta.RootCred, f, 0)
	x.must(err, "Truncate to 0")
	if a.Length != 0 || dataEnd(x.read(f, 0)) != 0 {
		x.t.Errorf("Truncate to 0 left length %d and data %+v", a.Length, meta.View(x.read(f, 0)))
	}
}

func testTruncateUp(x *env) {
	f := x.create(meta.RootIno, "f")
	s := x.write(f, 0, 0, 100)
	a, err := x.e.Truncate(x.ctx, meta.RootCred, f, 1<<30)
	x.must(err, "Truncate up")
	if a.Length != 1<<30 {
		x.t.Errorf("Truncate to 1 GiB returned length %d", a.Length)
	}
	if v := meta.View(x.read(f, 0)); len(v) == 0 || v[0] != s || dataEnd(x.read(f, 0)) != 100 {
		x.t.Errorf("growing a file changed its data: %+v", v)
	}
	if u := x.usage(); u.Space != 1<<30 {
		x.t.Errorf("Usage.Space = %d after growing the only file to 1 GiB", u.Space)
	}
	// Truncate to the same length is allowed and changes nothing else.
	a, err = x.e.Truncate(x.ctx, meta.RootCred, f, 1<<30)
	x.must(err, "Truncate to the same length")
	if a.Length != 1<<30 {
		x.t.Errorf("Truncate to the same length left %d", a.Length)
	}
}

func testTruncateErrors(x *env) {
	d := x.mkdir(meta.RootIno, "d")
	_, err := x.e.Truncate(x.ctx, meta.RootCred, d, 0)
	x.want(meta.ErrIsDir, err, "Truncate of a directory")
	_, err = x.e.Truncate(x.ctx, meta.RootCred, 999999, 0)
	x.want(meta.ErrNotFound, err, "Truncate of a missing inode")
	fifo, _ := x.mknodAs(meta.RootCred, meta.RootIno, "fifo", meta.TypeFIFO, 0644)
	_, err = x.e.Truncate(x.ctx, meta.RootCred, fifo, 0)
	x.want(meta.ErrInvalid, err, "Truncate of a FIFO")
}

func testFallocate(x *env) {
	f := x.create(meta.RootIno, "f")
	a, err := x.e.Fallocate(x.ctx, meta.RootCred, f, 0, 0, 10000)
	x.must(err, "Fallocate")
	if a.Length != 10000 {
		x.t.Errorf("Fallocate of [0,10000) on an empty file gave length %d", a.Length)
	}
	if g := x.attr(f); g != a {
		x.t.Errorf("Fallocate returned %+v, GetAttr says %+v", a, g)
	}
	a, err = x.e.Fallocate(x.ctx, meta.RootCred, f, meta.FallocKeepSize, 0, 50000)
	x.must(err, "Fallocate keep size")
	if a.Length != 10000 {
		x.t.Errorf("Fallocate with keep-size changed the length to %d", a.Length)
	}
	a, err = x.e.Fallocate(x.ctx, meta.RootCred, f, 0, 100, 200)
	x.must(err, "Fallocate inside the file")
	if a.Length != 10000 {
		x.t.Errorf("Fallocate inside the file changed the length to %d", a.Length)
	}
	a, err = x.e.Fallocate(x.ctx, meta.RootCred, f, 0, meta.ChunkSize-10, 20)
	x.must(err, "Fallocate across a chunk boundary")
	if a.Length != meta.ChunkSize+10 {
		x.t.Errorf("Fallocate of [ChunkSize-10, +20) gave length %d, want %d", a.Length, meta.ChunkSize+10)
	}
	if u := x.usage(); u.Space != (meta.ChunkSize+10+4095)&^4095 {
		x.t.Errorf("Usage.Space = %d after Fallocate, want %d", u.Space, (meta.ChunkSize+10+4095)&^4095)
	}
}

func testFallocateErrors(x *env) {
	f := x.create(meta.RootIno, "f")
	d := x.mkdir(meta.RootIno, "d")
	_, err := x.e.Fallocate(x.ctx, meta.RootCred, f, 0, 0, 0)
	x.want(meta.ErrInvalid, err, "Fallocate of size 0")
	_, err = x.e.Fallocate(x.ctx, meta.RootCred, f, meta.FallocPunchHole, 0, 10)
	x.want(meta.ErrNotSupported, err, "punch hole without keep-size")
	_, err = x.e.Fallocate(x.ctx, meta.RootCred, d, 0, 0, 10)
	x.want(meta.ErrIsDir, err, "Fallocate of a directory")
	link := x.symlink(meta.RootIno, "l", "f")
	_, err = x.e.Fallocate(x.ctx, meta.RootCred, link, 0, 0, 10)
	x.want(meta.ErrNoDevice, err, "Fallocate of a symlink")
	_, err = x.e.Fallocate(x.ctx, meta.RootCred, 999999, 0, 0, 10)
	x.want(meta.ErrNotFound, err, "Fallocate of a missing inode")
	if a := x.attr(f); a.Length != 0 {
		x.t.Errorf("failed Fallocates changed the length to %d", a.Length)
	}
}

// holeAt reports whether the visible records of list read [from, to) as
// zeros: a hole record or no record at all.
func holeAt(list []meta.Slice, from, to uint32) bool {
	for _, s := range meta.View(list) {
		if s.ID != 0 && s.Pos < to && s.Pos+s.Len > from {
			return false
		}
	}
	return true
}

func testPunchHole(x *env) {
	f := x.create(meta.RootIno, "f")
	x.write(f, 0, 0, 20000)
	base := x.usage()
	a, err := x.e.Fallocate(x.ctx, meta.RootCred, f, meta.FallocPunchHole|meta.FallocKeepSize, 4096, 8192)
	x.must(err, "punch hole")
	if a.Length != 20000 {
		x.t.Errorf("punching a hole changed the length to %d", a.Length)
	}
	list := x.read(f, 0)
	if !holeAt(list, 4096, 12288) {
		x.t.Errorf("after punching [4096,12288) the chunk shows data there: %+v", meta.View(list))
	}
	if holeAt(list, 0, 4096) || holeAt(list, 12288, 20000) {
		x.t.Errorf("punching [4096,12288) lost data around the hole: %+v", meta.View(list))
	}
	found := false
	for _, s := range meta.View(list) {
		if s.ID == 0 && s.Pos <= 4096 && s.Pos+s.Len >= 12288 {
			found = true
		}
	}
	if !found {
		x.t.Errorf("punching a hole over data left no hole record (ID 0) covering it: %+v", list)
	}
	if u := x.usage(); u != base {
		x.t.Errorf("punching a hole changed Usage (which counts lengths) to %+v, was %+v", u, base)
	}
	// A hole across a chunk boundary covers the end of one chunk and the
	// start of the next.
	g := x.create(meta.RootIno, "g")
	x.write(g, 0, meta.ChunkSize-8192, 8192)
	x.write(g, 1, 0, 8192)
	_, err = x.e.Fallocate(x.ctx, meta.RootCred, g, meta.FallocPunchHole|meta.FallocKeepSize, meta.ChunkSize-4096, 8192)
	x.must(err, "punch hole across chunks")
	if l0, l1 := x.read(g, 0), x.read(g, 1); !holeAt(l0, meta.ChunkSize-4096, meta.ChunkSize) || !holeAt(l1, 0, 4096) ||
		holeAt(l0, meta.ChunkSize-8192, meta.ChunkSize-4096) || holeAt(l1, 4096, 8192) {
		x.t.Errorf("punching [ChunkSize-4096, ChunkSize+4096) left chunk 0 %+v and chunk 1 %+v", meta.View(l0), meta.View(l1))
	}
}

func testZeroRange(x *env) {
	f := x.create(meta.RootIno, "f")
	x.write(f, 0, 0, 10000)
	a, err := x.e.Fallocate(x.ctx, meta.RootCred, f, meta.FallocZeroRange, 1000, 2000)
	x.must(err, "zero range")
	if a.Length != 10000 {
		x.t.Errorf("zeroing inside the file changed its length to %d", a.Length)
	}
	if list := x.read(f, 0); !holeAt(list, 1000, 3000) || holeAt(list, 0, 1000) || holeAt(list, 3000, 10000) {
		x.t.Errorf("after zeroing [1000,3000) the chunk reads %+v", meta.View(list))
	}
	a, err = x.e.Fallocate(x.ctx, meta.RootCred, f, meta.FallocZeroRange, 9000, 3000)
	x.must(err, "zero range past the end")
	if a.Length != 12000 {
		x.t.Errorf("zeroing [9000,12000) of a 10000-byte file gave length %d, want 12000", a.Length)
	}
	a, err = x.e.Fallocate(x.ctx, meta.RootCred, f, meta.FallocZeroRange|meta.FallocKeepSize, 11000, 3000)
	x.must(err, "zero range with keep-size")
	if a.Length != 12000 {
		x.t.Errorf("zeroing with keep-size changed the length to %d", a.Length)
	}
	if list := x.read(f, 0); !holeAt(list, 9000, 12000) {
		x.t.Errorf("after zeroing [9000,12000) the chunk reads %+v", meta.View(list))
	}
}

func testCompact(x *env) {
	f := x.create(meta.RootIno, "f")
	s1 := x.write(f, 0, 0, 4096)
	s2 := x.write(f, 0, 1000, 4096)
	s3 := x.write(f, 0, 8192, 100)
	merged := meta.Slice{Pos: 0, ID: x.newSliceID(), Size: 5096, Off: 0, Len: 5096}
	x.must(x.e.Compact(x.ctx, f, 0, []meta.Slice{s1, s2}, merged), "Compact")
	got := x.read(f, 0)
	if fmt.Sprint(got) != fmt.Sprint([]meta.Slice{merged, s3}) {
		x.t.Errorf("after Compact the chunk is %+v, want %+v", got, []meta.Slice{merged, s3})
	}
	dead := x.deadIDs()
	if _, ok := dead[s1.ID]; !ok {
		x.t.Errorf("compacted slice %d is not in DeadSlices: %v", s1.ID, dead)
	}
	if _, ok := dead[s2.ID]; !ok {
		x.t.Errorf("compacted slice %d is not in DeadSlices: %v", s2.ID, dead)
	}
	if _, ok := dead[s3.ID]; ok || len(dead) != 2 {
		x.t.Errorf("DeadSlices after Compact = %v, want exactly %d and %d", dead, s1.ID, s2.ID)
	}
	if a := x.attr(f); a.Length != 8292 {
		x.t.Errorf("Compact changed the length to %d", a.Length)
	}
	// The whole list may be compacted, holes included.
	_, err := x.e.Fallocate(x.ctx, meta.RootCred, f, meta.FallocPunchHole|meta.FallocKeepSize, 0, 100)
	x.must(err, "punch hole")
	list := x.read(f, 0)
	all := meta.Slice{Pos: 0, ID: x.newSliceID(), Size: 8292, Len: 8292}
	x.must(x.e.Compact(x.ctx, f, 0, list, all), "Compact of the whole list")
	if got := x.read(f, 0); len(got) != 1 || got[0] != all {
		x.t.Errorf("after compacting the whole list the chunk is %+v", got)
	}
	if _, ok := x.deadIDs()[0]; ok {
		x.t.Errorf("a hole record (slice 0) reached DeadSlices")
	}
}

func testCompactConflict(x *env) {
	f := x.create(meta.RootIno, "f")
	s1 := x.write(f, 0, 0, 100)
	s2 := x.write(f, 0, 100, 100)
	x.write(f, 0, 200, 100)
	merged := meta.Slice{ID: x.newSliceID(), Size: 200, Len: 200}
	x.want(meta.ErrConflict, x.e.Compact(x.ctx, f, 0, []meta.Slice{s2}, merged), "Compact of records that are not the list's prefix")
	x.want(meta.ErrConflict, x.e.Compact(x.ctx, f, 0, []meta.Slice{s2, s1}, merged), "Compact of the prefix in the wrong order")
	x.want(meta.ErrInvalid, x.e.Compact(x.ctx, f, 0, nil, merged), "Compact of no records")
	x.must(x.e.Compact(x.ctx, f, 0, []meta.Slice{s1, s2}, merged), "Compact")
	again := meta.Slice{ID: x.newSliceID(), Size: 200, Len: 200}
	x.want(meta.ErrConflict, x.e.Compact(x.ctx, f, 0, []meta.Slice{s1, s2}, again), "Compact of a prefix that was already compacted")
	if got := x.read(f, 0); len(got) != 2 || got[0] != merged {
		x.t.Errorf("a refused Compact changed the chunk to %+v", got)
	}
	if _, ok := x.deadIDs()[again.ID]; ok {
		x.t.Errorf("a refused Compact queued its new slice as dead")
	}
	// A truncate rewrites the list; a compaction planned before it conflicts.
	g := x.create(meta.RootIno, "g")
	t1 := x.write(g, 0, 0, 1000)
	t2 := x.write(g, 0, 1000, 1000)
	_, err := x.e.Truncate(x.ctx, meta.RootCred, g, 500)
	x.must(err, "Truncate")
	list := x.read(g, 0)
	if len(list) >= 2 && list[0] == t1 && list[1] == t2 {
		return // Truncate kept the records and appended a hole: no conflict to see
	}
	stale := meta.Slice{ID: x.newSliceID(), Size: 2000, Len: 2000}
	x.want(meta.ErrConflict, x.e.Compact(x.ctx, g, 0, []meta.Slice{t1, t2}, stale), "Compact of records a Truncate rewrote")
	if end := dataEnd(x.read(g, 0)); end > 500 {
		x.t.Errorf("a stale Compact brought back data past the truncated length: %+v", meta.View(x.read(g, 0)))
	}
}

// A slice referenced by two records (as copy_file_range makes them) dies
// only with its last reference.
func testSharedSlice(x *env) {
	f := x.create(meta.RootIno, "f")
	g := x.create(meta.RootIno, "g")
	s := x.write(f, 0, 0, 8192)
	shared := meta.Slice{Pos: 0, ID: s.ID, Size: s.Size, Off: 4096, Len: 4096}
	_, _, err := x.e.Write(x.ctx, g, 0, shared, 1)
	x.must(err, "Write of a shared slice")
	merged := meta.Slice{ID: x.newSliceID(), Size: 8192, Len: 8192}
	x.must(x.e.Compact(x.ctx, f, 0, []meta.Slice{s}, merged), "Compact")
	if _, ok := x.deadIDs()[s.ID]; ok {
		x.t.Errorf("slice %d is in DeadSlices while another file still references it", s.ID)
	}
	x.unlink(meta.RootIno, "g")
	x.release(g)
	if _, ok := x.deadIDs()[s.ID]; !ok {
		x.t.Errorf("slice %d is not in DeadSlices after its last reference went", s.ID)
	}
}

// Slices that a Truncate cut away must not be forgotten: when the file goes,
// every slice it ever referenced reaches the dead-slice queue (unless the
// Truncate already queued it).
func testNoLeakAfterTruncate(x *env) {
	f := x.create(meta.RootIno, "f")
	s1 := x.write(f, 0, 0, 8192)
	s2 := x.write(f, 0, 4096, 8192)
	s3 := x.write(f, 3, 0, 100)
	_, err := x.e.Truncate(x.ctx, meta.RootCred, f, 100)
	x.must(err, "Truncate")
	_, err = x.e.Truncate(x.ctx, meta.RootCred, f, 0)
	x.must(err, "Truncate to 0")
	s4 := x.write(f, 0, 0, 10)
	x.unlink(meta.RootIno, "f")
	x.release(f)
	dead := x.deadIDs()
	for _, s := range []meta.Slice{s1, s2, s3, s4} {
		if _, ok := dead[s.ID]; !ok {
			x.t.Errorf("slice %d (once in the file) is not in DeadSlices after the file was truncated and released: %v", s.ID, dead)
		}
	}
}
