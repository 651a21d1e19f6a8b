package tests

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// TestErrnos checks the errno of each failing call against what Linux's
// own file systems return. Other files test the errnos of their concept
// (permissions, xattrs, locks, names, rename).
func TestErrnos(t *testing.T) {
	v := newVolume(t)
	p := v.path
	writeFile(t, p("file"), []byte("data"))
	must(t, os.MkdirAll(p("dir", "sub"), 0o755), "mkdir")

	cases := []struct {
		what string
		err  error
		want unix.Errno
	}{
		{"stat a missing name", unix.Stat(p("missing"), new(unix.Stat_t)), unix.ENOENT},
		{"open a missing file", func() error { _, err := unix.Open(p("missing"), unix.O_RDONLY, 0); return err }(), unix.ENOENT},
		{"stat through a missing directory", unix.Stat(p("missing", "x"), new(unix.Stat_t)), unix.ENOENT},
		{"unlink a missing name", unix.Unlink(p("missing")), unix.ENOENT},
		{"rmdir a missing name", unix.Rmdir(p("missing")), unix.ENOENT},
		{"mkdir an existing name", unix.Mkdir(p("file"), 0o755), unix.EEXIST},
		{"mkdir an existing directory", unix.Mkdir(p("dir"), 0o755), unix.EEXIST},
		{"mknod an existing name", unix.Mknod(p("dir"), unix.S_IFREG|0o644, 0), unix.EEXIST},
		{"stat through a file", unix.Stat(p("file", "x"), new(unix.Stat_t)), unix.ENOTDIR},
		{"create below a file", unix.Mkdir(p("file", "x"), 0o755), unix.ENOTDIR},
		{"rmdir a file", unix.Rmdir(p("file")), unix.ENOTDIR},
		{"unlink a directory", unix.Unlink(p("dir")), unix.EISDIR},
		{"rmdir a non-empty directory", unix.Rmdir(p("dir")), unix.ENOTEMPTY},
		{"rmdir .", unix.Rmdir(p("dir", "sub") + "/."), unix.EINVAL},
		{"open a directory for writing", func() error { _, err := unix.Open(p("dir"), unix.O_RDWR, 0); return err }(), unix.EISDIR},
		{"readlink of a directory", func() error { _, err := os.Readlink(p("dir")); return err }(), unix.EINVAL},
	}
	for _, c := range cases {
		wantErrno(t, c.err, c.want, c.what)
	}

	// Reading a directory's bytes and writing through a read-only descriptor.
	d, err := os.Open(p("dir"))
	must(t, err, "open dir")
	_, err = d.Read(make([]byte, 10))
	d.Close()
	wantErrno(t, err, unix.EISDIR, "read(2) on a directory")
	f, err := os.Open(p("file"))
	must(t, err, "open")
	_, err = f.Write([]byte("x"))
	f.Close()
	wantErrno(t, err, unix.EBADF, "write on a read-only descriptor")
	// Nothing above changed the tree.
	wantContent(t, p("file"), []byte("data"))
	if _, err := os.Stat(p("dir", "sub")); err != nil {
		t.Errorf("dir/sub: %v", err)
	}
}

// TestNoSpace checks that the --capacity and --inodes limits hold with
// ENOSPC, and that statfs reports them.
func TestNoSpace(t *testing.T) {
	v := newVolume(t, "--capacity", "8M", "--inodes", "20")
	st := statfs(t, v.dir)
	if total := st.Blocks * uint64(st.Bsize); total != 8<<20 {
		t.Errorf("statfs: %d blocks of %d bytes = %d, want the capacity %d", st.Blocks, st.Bsize, total, 8<<20)
	}
	if st.Files != 20 {
		t.Errorf("statfs: %d inodes, want the limit 20", st.Files)
	}

	// Writing 16 MiB into an 8 MiB volume fails with ENOSPC at write,
	// fsync or close, never silently.
	f, err := os.Create(v.path("big"))
	must(t, err, "create")
	chunk := pattern(1, 1<<20)
	var failed error
	for i := 0; i < 16 && failed == nil; i++ {
		_, failed = f.Write(chunk)
	}
	if failed == nil {
		failed = f.Sync()
	}
	if err := f.Close(); failed == nil {
		failed = err
	}
	wantErrno(t, failed, unix.ENOSPC, "write 16 MiB into an 8 MiB volume")
	// A length past the largest file is EFBIG, whatever the space left.
	wantErrno(t, os.Truncate(v.path("big"), 1<<60), unix.EFBIG, "truncate to 2^60 on a full volume")
	must(t, os.Remove(v.path("big")), "remove")

	// Creating files beyond the inode limit fails with ENOSPC.
	var createErr error
	for i := 0; i < 25; i++ {
		if createErr = os.WriteFile(v.path("f"+strconv.Itoa(i)), nil, 0o644); createErr != nil {
			break
		}
	}
	wantErrno(t, createErr, unix.ENOSPC, "create beyond the inode limit")
	wantErrno(t, os.Mkdir(v.path("one-more-dir"), 0o755), unix.ENOSPC, "mkdir beyond the inode limit")
}

// TestReadOnlyMount checks that --read-only refuses every change with EROFS
// and still reads.
func TestReadOnlyMount(t *testing.T) {
	v := newVolume(t)
	writeFile(t, v.path("file"), []byte("kept"))
	v.unmount(t)
	v.mount(t, "--read-only")
	wantContent(t, v.path("file"), []byte("kept"))
	_, err := os.OpenFile(v.path("file"), os.O_WRONLY, 0)
	wantErrno(t, err, unix.EROFS, "open for writing")
	wantErrno(t, os.WriteFile(v.path("new"), nil, 0o644), unix.EROFS, "create")
	wantErrno(t, os.Mkdir(v.path("d"), 0o755), unix.EROFS, "mkdir")
	wantErrno(t, os.Remove(v.path("file")), unix.EROFS, "unlink")
	wantErrno(t, os.Chmod(v.path("file"), 0o600), unix.EROFS, "chmod")
	wantErrno(t, unix.Setxattr(v.path("file"), "user.x", []byte("1"), 0), unix.EROFS, "setxattr")
	if errors.Is(err, unix.EROFS) {
		v.unmount(t)
		v.mount(t)
		wantContent(t, v.path("file"), []byte("kept"))
	}
}

// TestHugeOffsets checks that sizes beyond what the volume can address
// fail with EFBIG instead of wrapping around onto the start of the file,
// and that fallocate modes cairn does not implement are refused.
func TestHugeOffsets(t *testing.T) {
	v := newVolume(t)
	path := v.path("huge")
	head := pattern(71, 4096)
	writeFile(t, path, head)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	must(t, err, "open")
	defer f.Close()
	for _, size := range []int64{1 << 50, 1 << 62} {
		err := f.Truncate(size)
		if err != nil {
			wantErrno(t, err, unix.EFBIG, "truncate to "+strconv.FormatInt(size, 10))
			continue
		}
		// Accepted: then the file must really be that long, and a byte
		// written at its end must not land anywhere else.
		fi, err := f.Stat()
		must(t, err, "fstat")
		if fi.Size() != size {
			t.Errorf("truncate to %d: size %d", size, fi.Size())
		}
		if _, err := f.WriteAt([]byte("z"), size-1); err != nil {
			wantErrno(t, err, unix.EFBIG, "write at "+strconv.FormatInt(size-1, 10))
		}
		got := make([]byte, len(head))
		_, err = f.ReadAt(got, 0)
		must(t, err, "read head")
		if !bytes.Equal(got, head) {
			t.Errorf("after growing to %d and writing at its end, the first bytes changed: %s", size, diffBytes(got, head))
		}
		must(t, f.Truncate(int64(len(head))), "truncate back")
	}
	_, err = f.WriteAt([]byte("z"), 1<<62)
	if err != nil {
		wantErrno(t, err, unix.EFBIG, "write at 2^62")
	}
	got := make([]byte, len(head))
	_, err = f.ReadAt(got, 0)
	must(t, err, "read head")
	if !bytes.Equal(got, head) {
		t.Errorf("after a write at 2^62, the first bytes changed: %s", diffBytes(got, head))
	}
	must(t, f.Truncate(int64(len(head))), "truncate back")
	err = unix.Fallocate(int(f.Fd()), unix.FALLOC_FL_COLLAPSE_RANGE, 0, 4096)
	if err != nil {
		wantErrno(t, err, unix.EOPNOTSUPP, "fallocate COLLAPSE_RANGE")
	}
}
