package tests

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// infoJSON is the part of 'cairn info' the tests read.
type infoJSON struct {
	Path  string `json:"path"`
	Mount string `json:"mount"`
	Ino   uint64 `json:"inode"`
	Attr  struct {
		Type   int
		Length uint64
	} `json:"attr"`
	Chunks []struct {
		Index  uint32 `json:"index"`
		Slices []struct {
			ID   uint64
			Size uint32
			Keys []string `json:"keys"`
		} `json:"slices"`
	} `json:"chunks"`
}

type summaryJSON struct {
	Size        uint64 `json:"size"`
	Space       uint64 `json:"space"`
	Files       uint64 `json:"files"`
	Directories uint64 `json:"directories"`
	Source      string `json:"source"`
	Counted     uint64 `json:"counted_directories"`
	Biggest     []struct {
		Name  string `json:"name"`
		Size  uint64 `json:"size"`
		Space uint64 `json:"space"`
		Files uint64 `json:"files"`
	} `json:"biggest"`
}

// passwordEnv is the environment that gives 'cairn info' and 'cairn
// summary' the password the mount reports masked: META_PASSWORD, or
// REDIS_PASSWORD for Redis.
func (v *volume) passwordEnv() []string {
	scheme, rest, _ := strings.Cut(v.meta, "://")
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return nil
	}
	_, password, ok := strings.Cut(rest[:at], ":")
	if !ok {
		return nil
	}
	if scheme == "redis" || scheme == "rediss" {
		return []string{"REDIS_PASSWORD=" + password}
	}
	return []string{"META_PASSWORD=" + password}
}

// inspectOK runs 'cairn info' or 'cairn summary' on v, which must succeed,
// and decodes its JSON into out.
func (v *volume) inspectOK(t testing.TB, out any, args ...string) string {
	t.Helper()
	r := runCairnEnv(t, v.passwordEnv(), args...)
	if r.code != 0 {
		t.Fatalf("cairn %v: exit %d: %s", args, r.code, r.stderr)
	}
	must(t, json.Unmarshal([]byte(r.stdout), out), "decode the output of cairn "+args[0])
	return r.stdout
}

// statObject checks that v's bucket holds key.
func (v *volume) statObject(key string) error {
	if v.minio == nil {
		_, err := os.Stat(filepath.Join(v.bucket, key))
		return err
	}
	client, err := minio.New(v.minio.Endpoint(), &minio.Options{Creds: credentials.NewStaticV4(v.minio.AccessKey, v.minio.SecretKey, "")})
	if err != nil {
		return err
	}
	_, err = client.StatObject(context.Background(), v.bucket[strings.LastIndexByte(v.bucket, '/')+1:], key, minio.StatObjectOptions{})
	return err
}

// TestInfoAndSummary: info shows a file's inode, length, slices and the
// objects that hold them (which exist in the bucket); summary counts a
// tree read through the engine; both refuse a path outside a cairn mount.
// They run in the mount's process, so on every engine, Badger included.
func TestInfoAndSummary(t *testing.T) {
	v := newVolume(t)
	big := pattern(17, 5<<20+17)
	writeFile(t, v.path("big"), big)
	must(t, os.MkdirAll(v.path("d", "sub"), 0o755), "mkdir")
	writeFile(t, v.path("d", "one"), make([]byte, 1000))
	writeFile(t, v.path("d", "sub", "two"), make([]byte, 2000))
	writeFile(t, v.path("d", "sub", "three"), nil)
	must(t, os.Symlink("big", v.path("link")), "symlink")

	var info infoJSON
	out := v.inspectOK(t, &info, "info", v.path("big"))
	var st syscall.Stat_t
	must(t, syscall.Stat(v.path("big"), &st), "stat")
	if info.Ino != st.Ino || info.Attr.Length != uint64(len(big)) || info.Mount != v.dir {
		t.Errorf("info of big: inode %d, length %d, mount %q; want %d, %d, %q", info.Ino, info.Attr.Length, info.Mount, st.Ino, len(big), v.dir)
	}
	var covered uint64
	keys := 0
	for _, c := range info.Chunks {
		for _, s := range c.Slices {
			covered += uint64(s.Size)
			for _, k := range s.Keys {
				keys++
				if err := v.statObject(k); err != nil {
					t.Errorf("info names object %s, which the bucket does not hold: %v", k, err)
				}
			}
		}
	}
	if covered < uint64(len(big)) || keys < 2 {
		t.Errorf("info of big: slices cover %d bytes in %d objects, want at least %d bytes in 2 or more objects:\n%s", covered, keys, len(big), out)
	}
	info = infoJSON{}
	v.inspectOK(t, &info, "info", v.path("d"))
	if info.Attr.Type != 2 || len(info.Chunks) != 0 {
		t.Errorf("info of a directory: %+v", info)
	}

	var sum summaryJSON
	v.inspectOK(t, &sum, "summary", v.dir, "--top", "2", "--threads", "2", "--count")
	wantSize := uint64(len(big) + 1000 + 2000)
	if sum.Size != wantSize || sum.Files != 5 || sum.Directories != 3 || sum.Source != "count" {
		t.Errorf("summary of the volume: %+v, want %d bytes, 5 files (symlink included), 3 directories", sum, wantSize)
	}
	if len(sum.Biggest) != 2 || sum.Biggest[0].Name != "big" || sum.Biggest[1].Name != "d" || sum.Biggest[1].Files != 3 || sum.Biggest[1].Size != 3000 {
		t.Errorf("biggest entries: %+v, want big, then d with 3 files of 3000 bytes", sum.Biggest)
	}
	sum = summaryJSON{}
	v.inspectOK(t, &sum, "summary", v.path("d", "sub"), "--count")
	if sum.Size != 2000 || sum.Files != 2 || sum.Directories != 1 {
		t.Errorf("summary of d/sub: %+v", sum)
	}

	outside := tempDir(t)
	wantUserError(t, runCairn(t, "info", outside), "not inside a cairn mount")
	wantUserError(t, runCairn(t, "summary", outside), "not inside a cairn mount")
	wantUserError(t, runCairn(t, "info", v.path("missing")), "missing")
	wantUserError(t, runCairn(t, "info"), "argument")
}
