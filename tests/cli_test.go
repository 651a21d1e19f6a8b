package tests

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"cairn/internal/testenv"
	"cairn/meta"
	"cairn/meta/engines"
)

// statusJSON is the part of 'cairn status' the tests read.
type statusJSON struct {
	Meta   string `json:"meta"`
	Engine struct {
		Name string `json:"name"`
	} `json:"engine"`
	Setting struct {
		Name        string `json:"name"`
		UUID        string `json:"uuid"`
		Storage     string `json:"storage"`
		Bucket      string `json:"bucket"`
		BlockSize   uint32 `json:"block_size"`
		Compression string `json:"compression"`
		Capacity    uint64 `json:"capacity"`
		Inodes      uint64 `json:"inodes"`
		Version     int    `json:"version"`
	} `json:"setting"`
	Usage struct {
		UsedSpace  uint64 `json:"used_space"`
		UsedInodes uint64 `json:"used_inodes"`
	} `json:"usage"`
	Sessions []struct {
		ID         uint64 `json:"id"`
		MountPoint string `json:"mount_point"`
		PID        int    `json:"pid"`
	} `json:"sessions"`
}

func status(t testing.TB, metaURL string) statusJSON {
	t.Helper()
	out := cairnOK(t, "status", metaURL)
	var st statusJSON
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("cairn status printed no JSON (%v):\n%s", err, out)
	}
	return st
}

// wantUserError checks that a failed command behaved as every user-facing
// failure must: exit status 1, exactly one line on stderr that mentions
// each of want, and no Go panic or stack trace.
func wantUserError(t testing.TB, r result, want ...string) {
	t.Helper()
	if r.code != 1 {
		t.Errorf("exit status %d, want 1 (stderr %q)", r.code, r.stderr)
	}
	if !strings.HasSuffix(r.stderr, "\n") || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("stderr is not exactly one line: %q", r.stderr)
	}
	for _, bad := range []string{"goroutine", "panic", "runtime error"} {
		if strings.Contains(r.stderr+r.stdout, bad) {
			t.Errorf("output shows a crash (%q):\n%s%s", bad, r.stderr, r.stdout)
		}
	}
	for _, w := range want {
		if !strings.Contains(strings.ToLower(r.stderr), strings.ToLower(w)) {
			t.Errorf("stderr %q does not mention %q", r.stderr, w)
		}
	}
}

func TestVersion(t *testing.T) {
	out := cairnOK(t, "version")
	if !strings.HasPrefix(out, "cairn ") || strings.Count(out, "\n") != 1 {
		t.Errorf("cairn version printed %q, want one line starting with \"cairn \"", out)
	}
}

func TestMalformedMetaURL(t *testing.T) {
	dir := tempDir(t)
	for _, u := range []string{"not-a-url", "://nothing", "/var/lib/vol.db"} {
		wantUserError(t, runCairn(t, "format", u, "vol-a", "--bucket", filepath.Join(dir, "b")), "malformed", u)
		wantUserError(t, runCairn(t, "status", u), "malformed", u)
	}
	if _, err := os.Stat(filepath.Join(dir, "b")); err == nil {
		t.Errorf("a failed format created the bucket directory")
	}
}

// TestNewerFormatVersion: a volume whose settings carry a format version
// newer than this cairn's is refused by every command that opens it, in
// one line, and not mounted.
func TestNewerFormatVersion(t *testing.T) {
	dir := tempDir(t)
	url := "sqlite3://" + filepath.Join(dir, "meta.db")
	cairnOK(t, "format", url, "vol-newer", "--bucket", filepath.Join(dir, "blocks"))
	eng, err := engines.Open(url)
	if err != nil {
		t.Fatal(err)
	}
	f, err := eng.Load(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	f.Version = meta.FormatVersion + 1
	if err := eng.Init(t.Context(), f, true); err != nil {
		t.Fatal(err)
	}
	eng.Close()
	want := fmt.Sprintf("format version %d", f.Version)
	mnt := filepath.Join(dir, "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { testenv.ForceUnmount(t, mnt) }) // were it mounted after all
	for _, args := range [][]string{
		{"status", url},
		{"mount", url, mnt, "-d", "--cache-dir", filepath.Join(dir, "cache")},
		{"fsck", url},
		{"dump", url, filepath.Join(dir, "d.json")},
		{"config", url, "--capacity", "1G"},
	} {
		t.Run(args[0], func(t *testing.T) { wantUserError(t, runCairn(t, args...), want, "upgrade cairn") })
	}
	if _, err := os.Stat(filepath.Join(dir, "d.json")); err == nil {
		t.Errorf("a refused dump left a file")
	}
}

func TestFormatInMemoryEngine(t *testing.T) {
	// mem:// lives in one process: a volume formatted there could never
	// be mounted, so format refuses it.
	wantUserError(t, runCairn(t, "format", "mem://", "vol-a", "--bucket", tempDir(t)), "mem://")
}

func TestUnreachableEngine(t *testing.T) {
	// Nothing listens on a free port: each command says so in one line,
	// within the engine's connect timeout.
	port := testenv.FreePort(t)
	for _, u := range []string{
		fmt.Sprintf("redis://127.0.0.1:%d/1", port),
		fmt.Sprintf("postgres://cairn@127.0.0.1:%d/cairn?sslmode=disable", port),
		fmt.Sprintf("mysql://cairn@(127.0.0.1:%d)/cairn", port),
		fmt.Sprintf("etcd://127.0.0.1:%d/cairn", port),
	} {
		scheme, _, _ := strings.Cut(u, "://")
		if !slices.Contains(engines.Schemes(), scheme) {
			continue
		}
		wantUserError(t, runCairn(t, "format", u, "vol-a", "--bucket", filepath.Join(tempDir(t), "b")))
		wantUserError(t, runCairn(t, "status", u))
		if scheme == "redis" { // they open the volume as status does: one engine is enough
			wantUserError(t, runCairn(t, "config", u, "--capacity", "1G"))
			wantUserError(t, runCairn(t, "destroy", u, "0b7c3c9e-5d47-4a8e-9d1f-2f1c7e6a9b01"))
		}
	}
}

func TestUnknownEngine(t *testing.T) {
	wantUserError(t, runCairn(t, "format", "nosuchdb://host/x", "vol-a", "--bucket", tempDir(t)), "unknown", "nosuchdb")
	wantUserError(t, runCairn(t, "status", "nosuchdb://host/x"), "unknown", "nosuchdb")
}

func TestMissingArguments(t *testing.T) {
	wantUserError(t, runCairn(t, "format"), "argument")
	wantUserError(t, runCairn(t, "format", "sqlite3:///tmp/x.db"), "argument")
	wantUserError(t, runCairn(t, "status"), "argument")
	wantUserError(t, runCairn(t, "no-such-command"), "unknown command")
}

func TestNeverFormatted(t *testing.T) {
	metaURL := newMetaURL(t)
	wantUserError(t, runCairn(t, "status", metaURL), "format")
	wantUserError(t, runCairn(t, "mount", metaURL, tempDir(t)), "format")
	wantUserError(t, runCairn(t, "config", metaURL), "format")
	wantUserError(t, runCairn(t, "config", metaURL, "--capacity", "1G"), "format")
	wantUserError(t, runCairn(t, "destroy", metaURL, "0b7c3c9e-5d47-4a8e-9d1f-2f1c7e6a9b01"), "format")
	// Looking did not leave a database behind.
	if path, ok := strings.CutPrefix(metaURL, "sqlite3://"); ok {
		if _, err := os.Stat(path); err == nil {
			t.Errorf("status or mount of a volume never formatted created %s", path)
		}
	}
}

func TestBadFormatFlags(t *testing.T) {
	metaURL := newMetaURL(t)
	bucket := filepath.Join(tempDir(t), "b")
	cases := []struct {
		flags []string
		want  string
	}{
		{[]string{"--block-size", "3M"}, "block-size"},
		{[]string{"--block-size", "4Q"}, "block-size"},
		{[]string{"--block-size", "0"}, "block-size"},
		{[]string{"--block-size", "32M"}, "block-size"},
		{[]string{"--block-size", "-4M"}, "block-size"},
		{[]string{"--compress", "gzip"}, "compress"},
		{[]string{"--storage", "tape"}, "storage"},
		{[]string{"--capacity", "lots"}, "capacity"},
		{[]string{"--inodes", "-1"}, "inodes"},
		{[]string{"--no-such-flag"}, "no-such-flag"},
	}
	for _, c := range cases {
		args := append([]string{"format", metaURL, "vol-a", "--bucket", bucket}, c.flags...)
		r := runCairn(t, args...)
		t.Run(strings.Join(c.flags, "="), func(t *testing.T) { wantUserError(t, r, c.want) })
	}
	for _, name := range []string{"A_B", "ab", "vol-", strings.Repeat("v", 64), "a/b"} {
		wantUserError(t, runCairn(t, "format", metaURL, name, "--bucket", bucket), "name")
	}
	wantUserError(t, runCairn(t, "status", metaURL), "format")
	if _, err := os.Stat(bucket); err == nil {
		t.Errorf("a rejected format created the bucket directory")
	}
}

func TestFormatAndStatus(t *testing.T) {
	v := formatVolume(t, "--block-size", "1MiB", "--compress", "zstd", "--capacity", "2G", "--inodes", "1000")
	st := status(t, v.meta)
	s := st.Setting
	if s.Name != v.name || s.Storage != "file" || s.Bucket != v.bucket || s.BlockSize != 1<<20 ||
		s.Compression != "zstd" || s.Capacity != 2<<30 || s.Inodes != 1000 || s.Version < 1 {
		t.Errorf("status settings %+v do not match the format flags", s)
	}
	if len(s.UUID) != 36 {
		t.Errorf("uuid %q is not a UUID", s.UUID)
	}
	if st.Engine.Name != engineName() {
		t.Errorf("engine %q, want %q", st.Engine.Name, engineName())
	}
	if st.Usage.UsedInodes < 1 {
		t.Errorf("usage %+v: the root directory is not counted", st.Usage)
	}
	if fi, err := os.Stat(v.bucket); err != nil || !fi.IsDir() {
		t.Errorf("bucket directory %s not created: %v", v.bucket, err)
	}

	other := formatVolume(t, "--block-size", "1048576")
	if u := status(t, other.meta).Setting; u.UUID == s.UUID || u.BlockSize != 1<<20 || u.Compression != "none" {
		t.Errorf("second volume %+v: want its own uuid, 1 MiB blocks, no compression", u)
	}
}

// TestFormatExistingRefused: format only creates volumes; over an
// existing one, with or without --force, it refuses, points at config and
// changes nothing.
func TestFormatExistingRefused(t *testing.T) {
	v := formatVolume(t, "--capacity", "1G")
	before := status(t, v.meta).Setting
	wantUserError(t, runCairn(t, "format", v.meta, "other-name", "--bucket", v.bucket, "--capacity", "5G"), "already holds", "cairn config")
	wantUserError(t, runCairn(t, "format", v.meta, v.name, "--capacity", "5G", "--force"), "cairn config")
	if after := status(t, v.meta).Setting; after != before {
		t.Fatalf("a refused format changed the volume: %+v, was %+v", after, before)
	}
}

// TestConfig shows a volume's settings, changes those its blocks do not
// depend on (keeping the UUID and the rest), and refuses, changing
// nothing, those they do depend on.
func TestConfig(t *testing.T) {
	v := formatVolume(t, "--capacity", "1G")
	before := status(t, v.meta).Setting

	var shown statusJSON
	out := cairnOK(t, "config", v.meta)
	if err := json.Unmarshal([]byte(out), &shown.Setting); err != nil || shown.Setting != before {
		t.Fatalf("config without flags printed %q (%v), want the settings %+v", out, err, before)
	}

	cairnOK(t, "config", v.meta, "--capacity", "5G", "--inodes", "77", "--compress", "lz4", "--block-size", "4M")
	after := status(t, v.meta).Setting
	want := before
	want.Capacity, want.Inodes, want.Compression = 5<<30, 77, "lz4"
	if after != want {
		t.Errorf("after config: %+v, want %+v", after, want)
	}

	// Settings that locate or cut existing blocks cannot change.
	for _, c := range []struct {
		flags []string
		want  string
	}{
		{[]string{"--block-size", "1M"}, "block size"},
		{[]string{"--bucket", filepath.Join(tempDir(t), "elsewhere")}, "bucket"},
		{[]string{"--storage", "mem"}, "storage"},
		{[]string{"--capacity", "1G", "--block-size", "64K"}, "block size"},
		{[]string{"--compress", "gzip"}, "compress"},
	} {
		wantUserError(t, runCairn(t, append([]string{"config", v.meta}, c.flags...)...), c.want)
	}
	if now := status(t, v.meta).Setting; now != after {
		t.Errorf("a refused config changed the volume: %+v, was %+v", now, after)
	}
}

func TestUnwritableBucket(t *testing.T) {
	dir := tempDir(t)
	file := filepath.Join(dir, "a-file")
	must(t, os.WriteFile(file, []byte("x"), 0o644), "write")

	// A file where a directory is expected.
	metaURL := newMetaURL(t)
	wantUserError(t, runCairn(t, "format", metaURL, "vol-a", "--bucket", filepath.Join(file, "bucket")), "bucket")
	wantUserError(t, runCairn(t, "status", metaURL), "format")
	if data, _ := os.ReadFile(file); string(data) != "x" {
		t.Errorf("the file in the bucket's way was changed: %q", data)
	}

	// A directory the user may not write (root may write anything, so the
	// format runs as uid 65534, with its metadata where that user may write).
	locked := filepath.Join(dir, "locked")
	must(t, os.Mkdir(locked, 0o755), "mkdir")
	open := filepath.Join(dir, "open")
	must(t, os.Mkdir(open, 0o777), "mkdir")
	must(t, os.Chmod(open, 0o777), "chmod")
	if engineName() == "sqlite3" {
		nobodyURL := "sqlite3://" + filepath.Join(open, "meta.db")
		r := runAs(t, nobody, cairnBin, "format", nobodyURL, "vol-b", "--bucket", filepath.Join(locked, "bucket"))
		wantUserError(t, r, "bucket")
		wantUserError(t, runCairn(t, "status", nobodyURL), "format")
		if entries, _ := os.ReadDir(locked); len(entries) != 0 {
			t.Errorf("a failed format left %d entries in %s", len(entries), locked)
		}
	}

	// An existing volume keeps its settings when a reformat is refused.
	v := formatVolume(t)
	before := status(t, v.meta).Setting
	wantUserError(t, runCairn(t, "config", v.meta, "--bucket", filepath.Join(file, "bucket")), "bucket")
	if after := status(t, v.meta).Setting; after != before {
		t.Errorf("a failed reformat changed the volume: %+v, was %+v", after, before)
	}
}

func TestMountMissingDirectory(t *testing.T) {
	needMount(t)
	v := formatVolume(t)
	missing := filepath.Join(tempDir(t), "no", "such", "dir")
	wantUserError(t, runCairn(t, "mount", v.meta, missing), missing)
	if _, err := os.Stat(missing); err == nil {
		t.Errorf("a failed mount created %s", missing)
	}
	if st := status(t, v.meta); len(st.Sessions) != 0 {
		t.Errorf("a failed mount left %d sessions behind", len(st.Sessions))
	}
}
