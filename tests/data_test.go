package tests

import (
	"bytes"
	"crypto/sha256"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// seedFor returns the seed of a random test: CAIRN_TEST_SEED when set (to
// replay a failure), else the clock. It is printed when the test fails.
func seedFor(t *testing.T) uint64 {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("CAIRN_TEST_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		must(t, err, "CAIRN_TEST_SEED")
		seed = v
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("seed %d (replay with CAIRN_TEST_SEED=%d)", seed, seed)
		}
	})
	return seed
}

// TestRandomWrites checks random writes and truncates against a model.
func TestRandomWrites(t *testing.T) {
	v := newVolume(t)
	ops := 300
	if testing.Short() {
		ops = 60
	}
	randomWrites(t, v, "random", ops)
}

// TestVolumeSettings runs the random writes on volumes formatted and
// mounted with settings other than the defaults: compression, small
// blocks, a write buffer and cache far smaller than the data, and the
// kernel's writeback cache.
func TestVolumeSettings(t *testing.T) {
	cases := []struct {
		name          string
		format, mount []string
	}{
		{"zstd-64K-blocks", []string{"--compress", "zstd", "--block-size", "64K"}, nil},
		{"lz4-16M-blocks", []string{"--compress", "lz4", "--block-size", "16M"}, nil},
		{"small-buffer-and-cache", nil, []string{"--buffer-size", "8M", "--cache-size", "4M"}},
		{"no-cache", nil, []string{"--cache-dir", ""}},
		{"writeback-cache", nil, []string{"-o", "writeback_cache"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			needMount(t)
			v := formatVolume(t, c.format...)
			v.mountArgs = append(v.mountArgs, c.mount...)
			v.mount(t)
			randomWrites(t, v, "random", 60)
			// A file much larger than the buffer, written in one go.
			big := pattern(81, 48<<20+5)
			writeFile(t, v.path("big"), big)
			wantContent(t, v.path("big"), big)
			v.remount(t)
			wantContent(t, v.path("big"), big)
			if slices.Contains(c.format, "--compress") {
				checkCompressed(t, v)
			}
		})
	}
}

// checkCompressed writes 32 MiB of text and checks that the blocks stored
// for it take far less room.
func checkCompressed(t *testing.T, v *volume) {
	if fi, err := os.Stat(v.bucket); err != nil || !fi.IsDir() {
		return // blocks not in a local directory
	}
	before := bucketBytes(t, v.bucket)
	line := []byte("cairn compresses every block of this line. ")
	text := bytes.Repeat(line, 32<<20/len(line)+1)[:32<<20]
	writeFile(t, v.path("text"), text)
	v.remount(t) // every block uploaded
	wantContent(t, v.path("text"), text)
	if grew := bucketBytes(t, v.bucket) - before; grew > 4<<20 {
		t.Errorf("32 MiB of repeated text took %d bytes in the bucket", grew)
	}
}

func bucketBytes(t *testing.T, dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// randomWrites writes at random offsets of file name (across block and
// chunk boundaries), truncates up and down, and reads back through fresh
// descriptors, checking every byte against an in-memory model; the file is
// checked again after a remount.
func randomWrites(t *testing.T, v *volume, name string, ops int) {
	seed := seedFor(t)
	r := rand.New(rand.NewPCG(seed, 1))
	path := v.path(name)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	must(t, err, "create")
	defer func() { f.Close() }()

	var model []byte
	const span = 70 << 20 // beyond the first 64 MiB chunk
	for i := 0; i < ops; i++ {
		switch k := r.IntN(20); {
		case k < 15: // write
			off := r.Int64N(span)
			if r.IntN(3) == 0 { // near a chunk or block boundary
				off = int64(r.IntN(3))<<26 + int64(r.IntN(16))<<22 - r.Int64N(4096)
				off = max(off, 0)
			}
			data := pattern(r.Uint64(), 1+r.IntN(300<<10))
			if _, err := f.WriteAt(data, off); err != nil {
				t.Fatalf("op %d: write %d bytes at %d: %v", i, len(data), off, err)
			}
			if end := off + int64(len(data)); end > int64(len(model)) {
				model = append(model, make([]byte, end-int64(len(model)))...)
			}
			copy(model[off:], data)
		case k < 17: // truncate
			size := r.Int64N(span)
			if r.IntN(2) == 0 {
				size = r.Int64N(int64(len(model)) + 1)
			}
			if err := f.Truncate(size); err != nil {
				t.Fatalf("op %d: truncate to %d: %v", i, size, err)
			}
			if size < int64(len(model)) {
				model = model[:size]
			} else {
				model = append(model, make([]byte, size-int64(len(model)))...)
			}
		case k < 19: // read a range through the same descriptor
			if len(model) == 0 {
				continue
			}
			off := r.Int64N(int64(len(model)))
			buf := make([]byte, 1+r.IntN(1<<20))
			n, err := f.ReadAt(buf, off)
			if err != nil && err != io.EOF {
				t.Fatalf("op %d: read %d at %d: %v", i, len(buf), off, err)
			}
			want := model[off:min(off+int64(len(buf)), int64(len(model)))]
			if !bytes.Equal(buf[:n], want) {
				t.Fatalf("op %d: read %d at %d: %s", i, len(buf), off, diffBytes(buf[:n], want))
			}
		default: // close and reopen: the data must be there for a new open
			must(t, f.Close(), "close")
			wantContent(t, path, model)
			f, err = os.OpenFile(path, os.O_RDWR, 0)
			must(t, err, "reopen")
		}
		if t.Failed() {
			t.FailNow()
		}
	}
	must(t, f.Close(), "close")
	if fi, err := os.Stat(path); err != nil || fi.Size() != int64(len(model)) {
		t.Fatalf("stat: %v, size %d, want %d", err, fi.Size(), len(model))
	}
	wantContent(t, path, model)
	v.remount(t)
	wantContent(t, path, model)
}

func TestSparseFile(t *testing.T) {
	v := newVolume(t)
	path := v.path("sparse")
	f, err := os.Create(path)
	must(t, err, "create")
	head, tail := pattern(1, 1000), pattern(2, 5000)
	const far = 200<<20 + 12345 // in the fourth chunk
	_, err = f.WriteAt(head, 0)
	must(t, err, "write head")
	_, err = f.WriteAt(tail, far)
	must(t, err, "write tail")
	must(t, f.Close(), "close")

	fi, err := os.Stat(path)
	must(t, err, "stat")
	if fi.Size() != far+int64(len(tail)) {
		t.Fatalf("size %d, want %d", fi.Size(), far+len(tail))
	}
	f, err = os.Open(path)
	must(t, err, "open")
	defer f.Close()
	buf := make([]byte, 1<<20)
	for _, off := range []int64{1000, 64 << 20, 100<<20 + 7, far - int64(len(buf))} {
		n, err := f.ReadAt(buf, off)
		must(t, err, "read hole")
		if !bytes.Equal(buf[:n], make([]byte, n)) {
			t.Errorf("hole at %d reads non-zero bytes", off)
		}
	}
	got := make([]byte, len(tail))
	_, err = f.ReadAt(got, far)
	must(t, err, "read tail")
	if !bytes.Equal(got, tail) {
		t.Errorf("tail: %s", diffBytes(got, tail))
	}
	got = make([]byte, len(head))
	_, err = f.ReadAt(got, 0)
	must(t, err, "read head")
	if !bytes.Equal(got, head) {
		t.Errorf("head: %s", diffBytes(got, head))
	}
}

func TestTruncate(t *testing.T) {
	v := newVolume(t)
	path := v.path("trunc")
	data := pattern(3, 3<<20)
	writeFile(t, path, data)

	must(t, os.Truncate(path, 5000), "truncate down")
	wantContent(t, path, data[:5000])
	// Growing again must show zeros, not the old bytes.
	must(t, os.Truncate(path, 2<<20), "truncate up")
	want := append(append([]byte{}, data[:5000]...), make([]byte, 2<<20-5000)...)
	wantContent(t, path, want)

	// Across a chunk boundary, through a descriptor.
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	must(t, err, "open")
	must(t, f.Truncate(64<<20+10), "ftruncate up")
	_, err = f.WriteAt([]byte("end"), 64<<20+10)
	must(t, err, "write at end")
	must(t, f.Truncate(64<<20+11), "ftruncate down")
	must(t, f.Close(), "close")
	fi, err := os.Stat(path)
	must(t, err, "stat")
	if fi.Size() != 64<<20+11 {
		t.Fatalf("size %d, want %d", fi.Size(), 64<<20+11)
	}
	got := readFile(t, path)
	if !bytes.Equal(got[:5000], data[:5000]) || !bytes.Equal(got[5000:64<<20+10], make([]byte, 64<<20+10-5000)) || got[64<<20+10] != 'e' {
		t.Errorf("content after truncates is wrong")
	}
	must(t, os.Truncate(path, 0), "truncate to 0")
	wantContent(t, path, nil)
	wantErrno(t, os.Truncate(v.path("no-such"), 0), unix.ENOENT, "truncate missing")
	must(t, os.Mkdir(v.path("d"), 0o755), "mkdir")
	wantErrno(t, os.Truncate(v.path("d"), 0), unix.EISDIR, "truncate directory")
	wantErrno(t, os.Truncate(path, -1), unix.EINVAL, "truncate to -1")
}

// TestLargeFile writes 1 GiB sequentially and reads it back with a checksum.
func TestLargeFile(t *testing.T) {
	if testing.Short() {
		t.Skip("1 GiB file in -short mode")
	}
	v := newVolume(t)
	path := v.path("big")
	const size, piece = 1 << 30, 1 << 20
	f, err := os.Create(path)
	must(t, err, "create")
	sum := sha256.New()
	buf := make([]byte, piece)
	for off := 0; off < size; off += piece {
		// Cheap, position-dependent data: a different pattern per MiB.
		copy(buf, pattern(uint64(off/piece)%64, piece))
		buf[0], buf[1], buf[2], buf[3] = byte(off>>20), byte(off>>28), 0xca, 0xfe
		if _, err := f.Write(buf); err != nil {
			t.Fatalf("write at %d: %v", off, err)
		}
		sum.Write(buf)
	}
	must(t, f.Close(), "close")
	want := sum.Sum(nil)

	fi, err := os.Stat(path)
	must(t, err, "stat")
	if fi.Size() != size {
		t.Fatalf("size %d, want %d", fi.Size(), size)
	}
	check := func(what string) {
		f, err := os.Open(path)
		must(t, err, "open")
		defer f.Close()
		h := sha256.New()
		n, err := io.CopyBuffer(h, f, make([]byte, 1<<20))
		must(t, err, "read")
		if n != size || !bytes.Equal(h.Sum(nil), want) {
			t.Fatalf("%s: read %d bytes with sha256 %x, want %d bytes with %x", what, n, h.Sum(nil), size, want)
		}
	}
	check("read back")
	v.remount(t)
	check("read after remount")
}

func TestOpenFlags(t *testing.T) {
	v := newVolume(t)
	path := v.path("flags")
	writeFile(t, path, []byte("0123456789"))

	// O_APPEND: every write lands at the end, whatever the offset says,
	// also with two descriptors taking turns.
	a, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	must(t, err, "open append")
	b, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	must(t, err, "open append 2")
	_, err = a.Write([]byte("ab"))
	must(t, err, "append a")
	_, err = b.Write([]byte("cd"))
	must(t, err, "append b")
	_, err = a.Seek(0, io.SeekStart)
	must(t, err, "seek")
	_, err = a.Write([]byte("ef"))
	must(t, err, "append after seek")
	a.Close()
	b.Close()
	wantContent(t, path, []byte("0123456789abcdef"))

	// O_TRUNC empties the file.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	must(t, err, "open trunc")
	fi, err := f.Stat()
	must(t, err, "fstat")
	if fi.Size() != 0 {
		t.Errorf("size after O_TRUNC %d, want 0", fi.Size())
	}
	_, err = f.Write([]byte("new"))
	must(t, err, "write")
	f.Close()
	wantContent(t, path, []byte("new"))

	// O_EXCL refuses an existing name, also a symlink (even a dangling one).
	_, err = os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	wantErrno(t, err, unix.EEXIST, "O_EXCL on a file")
	must(t, os.Symlink("nowhere", v.path("dangling")), "symlink")
	_, err = os.OpenFile(v.path("dangling"), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	wantErrno(t, err, unix.EEXIST, "O_EXCL on a dangling symlink")
	f, err = os.OpenFile(v.path("fresh"), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o640)
	must(t, err, "O_EXCL create")
	f.Close()
	if st := lstat(t, v.path("fresh")); st.Mode&0o777 != 0o640&^umask() {
		t.Errorf("mode %o, want %o", st.Mode&0o777, 0o640&^umask())
	}
	// O_CREAT through a dangling symlink creates its target.
	f, err = os.OpenFile(v.path("dangling"), os.O_CREATE|os.O_WRONLY, 0o644)
	must(t, err, "create through dangling symlink")
	f.Close()
	if _, err := os.Stat(v.path("nowhere")); err != nil {
		t.Errorf("symlink target not created: %v", err)
	}
	// Opening a directory for writing.
	must(t, os.Mkdir(v.path("dir"), 0o755), "mkdir")
	_, err = os.OpenFile(v.path("dir"), os.O_WRONLY, 0)
	wantErrno(t, err, unix.EISDIR, "open a directory for writing")
	_, err = os.OpenFile(v.path("flags", "x"), os.O_RDONLY, 0)
	wantErrno(t, err, unix.ENOTDIR, "open below a file")
	_, err = unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	wantErrno(t, err, unix.ENOTDIR, "O_DIRECTORY on a file")
}

func umask() uint32 {
	m := unix.Umask(0)
	unix.Umask(m)
	return uint32(m)
}

// TestODirect checks that O_DIRECT either works, with aligned buffers,
// or is refused clearly (EINVAL), never silently corrupts.
func TestODirect(t *testing.T) {
	v := newVolume(t)
	path := v.path("direct")
	fd, err := unix.Open(path, unix.O_CREAT|unix.O_RDWR|unix.O_DIRECT, 0o644)
	if err == unix.EINVAL {
		t.Logf("O_DIRECT refused with EINVAL")
		return
	}
	must(t, err, "open O_DIRECT")
	defer unix.Close(fd)
	buf, err := unix.Mmap(-1, 0, 1<<20, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	must(t, err, "aligned buffer")
	defer unix.Munmap(buf)
	data := pattern(9, 1<<20)
	copy(buf, data)
	n, err := unix.Pwrite(fd, buf, 4096)
	if err != nil || n != len(buf) {
		t.Fatalf("O_DIRECT write: %d, %v", n, err)
	}
	clear(buf)
	n, err = unix.Pread(fd, buf, 4096)
	if err != nil || n != len(buf) || !bytes.Equal(buf, data) {
		t.Fatalf("O_DIRECT read back: %d, %v, equal %v", n, err, bytes.Equal(buf, data))
	}
	wantContent(t, path, append(make([]byte, 4096), data...))
}

func TestFallocate(t *testing.T) {
	v := newVolume(t)
	path := v.path("falloc")
	data := pattern(4, 1<<20)
	writeFile(t, path, data)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	must(t, err, "open")
	defer f.Close()
	fd := int(f.Fd())

	// Plain allocation past the end extends the length with zeros.
	must(t, unix.Fallocate(fd, 0, 0, 3<<20), "fallocate")
	if fi, _ := f.Stat(); fi.Size() != 3<<20 {
		t.Errorf("size after fallocate %d, want %d", fi.Size(), 3<<20)
	}
	// KEEP_SIZE leaves the length alone.
	must(t, unix.Fallocate(fd, unix.FALLOC_FL_KEEP_SIZE, 0, 5<<20), "fallocate keep size")
	if fi, _ := f.Stat(); fi.Size() != 3<<20 {
		t.Errorf("size after fallocate KEEP_SIZE %d, want %d", fi.Size(), 3<<20)
	}
	// A punched hole reads as zeros and keeps the length.
	must(t, unix.Fallocate(fd, unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, 1000, 200000), "punch hole")
	want := append(append([]byte{}, data...), make([]byte, 2<<20)...)
	clear(want[1000:201000])
	if fi, _ := f.Stat(); fi.Size() != 3<<20 {
		t.Errorf("size after punch hole %d, want %d", fi.Size(), 3<<20)
	}
	wantContent(t, path, want)
	// Punching without KEEP_SIZE is invalid, as on every Linux file system.
	wantErrno(t, unix.Fallocate(fd, unix.FALLOC_FL_PUNCH_HOLE, 0, 10), unix.EOPNOTSUPP, "punch hole without KEEP_SIZE")
	wantErrno(t, unix.Fallocate(fd, 0, 0, 0), unix.EINVAL, "fallocate of zero bytes")
	ro, err := os.Open(path)
	must(t, err, "open read-only")
	defer ro.Close()
	wantErrno(t, unix.Fallocate(int(ro.Fd()), 0, 0, 10), unix.EBADF, "fallocate on a read-only descriptor")
}

func TestCopyFileRange(t *testing.T) {
	v := newVolume(t)
	src, dst := v.path("src"), v.path("dst")
	data := pattern(5, 6<<20+333)
	writeFile(t, src, data)
	writeFile(t, dst, []byte("head"))
	in, err := os.Open(src)
	must(t, err, "open src")
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY, 0)
	must(t, err, "open dst")
	defer out.Close()
	roff, woff := int64(1000), int64(4)
	total := 5<<20 + 7
	for done := 0; done < total; {
		n, err := unix.CopyFileRange(int(in.Fd()), &roff, int(out.Fd()), &woff, total-done, 0)
		must(t, err, "copy_file_range")
		if n == 0 {
			t.Fatalf("copy_file_range stopped after %d of %d bytes", done, total)
		}
		done += n
	}
	must(t, out.Close(), "close")
	wantContent(t, dst, append([]byte("head"), data[1000:1000+total]...))
	wantContent(t, src, data)
}

// TestMmap writes through a shared writable mapping and reads the bytes
// back with read(2), before and after munmap, and after a remount.
func TestMmap(t *testing.T) {
	v := newVolume(t)
	path := v.path("mapped")
	const size = 3<<20 + 100
	writeFile(t, path, make([]byte, size))
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	must(t, err, "open")
	m, err := unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	must(t, err, "mmap")
	want := make([]byte, size)
	for _, off := range []int{0, 4095, 1 << 20, size - 50} {
		p := pattern(uint64(off), 50)
		copy(m[off:], p)
		copy(want[off:], p)
	}
	must(t, unix.Msync(m, unix.MS_SYNC), "msync")
	got := make([]byte, size)
	_, err = f.ReadAt(got, 0)
	must(t, err, "read after msync")
	if !bytes.Equal(got, want) {
		t.Errorf("read(2) after msync: %s", diffBytes(got, want))
	}
	// Without msync: munmap and close must still write the pages back.
	copy(m[2<<20:], "written without msync")
	copy(want[2<<20:], "written without msync")
	must(t, unix.Munmap(m), "munmap")
	must(t, f.Close(), "close")
	wantContent(t, path, want)
	v.remount(t)
	wantContent(t, path, want)
}
