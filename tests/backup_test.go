package tests

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// backupKeys lists the metadata backups in a local-directory bucket,
// oldest first.
func backupKeys(t testing.TB, bucket string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(bucket, "meta"))
	if os.IsNotExist(err) {
		return nil
	}
	must(t, err, "list the backups")
	var keys []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "dump-") {
			keys = append(keys, e.Name())
		}
	}
	slices.Sort(keys)
	return keys
}

// TestBackupMeta mounts a volume twice, with --backup-meta 2s and 1s:
// backups of its metadata appear in its bucket, written by the first
// client only; one begun after the tree was made loads into a fresh
// database, which mounts (on the same blocks) with the tree the volume
// had. A volume mounted with --backup-meta 0 gets none, and bad
// intervals are one line.
func TestBackupMeta(t *testing.T) {
	if os.Getenv("CAIRN_TEST_ENGINE") != "" {
		t.Skip("backups work alike on every engine: the default pass runs this once")
	}
	if storageName() != "file" {
		t.Skip("the test reads the backups from a local-directory bucket")
	}
	needMount(t)
	off := formatVolume(t)
	off.mount(t, "--backup-meta", "0")
	v := formatVolume(t)
	v.mount(t, "--backup-meta", "2s")
	populate(t, v)
	want := dumpSnapshot(t, v.dir)
	populated := time.Now()
	second := filepath.Join(tempDir(t), "mnt2")
	must(t, os.Mkdir(second, 0o755), "mkdir")
	// A shorter interval: were it not for the one-writer rule, the second
	// client would find the newest backup old enough at half its turns.
	other := v.mountAt(t, second, "--backup-meta", "1s")

	// Two backups begun after the tree was complete and the second client
	// was up: both clients had turns to take.
	var after []string
	if !eventually(20*time.Second, func() bool {
		after = after[:0]
		for _, k := range backupKeys(t, v.bucket) {
			if taken, err := time.Parse("dump-20060102-150405.bin.gz", k); err == nil && taken.After(populated) {
				after = append(after, k)
			}
		}
		return len(after) >= 2
	}) {
		t.Fatalf("no two backups in %s/meta after 20s (found %v); mount output:\n%s", v.bucket, backupKeys(t, v.bucket), v.mnt.Output())
	}
	if !strings.Contains(v.mnt.Output(), "metadata backup written") {
		t.Errorf("the first client did not say it wrote the backups:\n%s", v.mnt.Output())
	}
	if strings.Contains(other.Output(), "metadata backup written") {
		t.Errorf("the second client wrote backups too:\n%s", other.Output())
	}
	if keys := backupKeys(t, off.bucket); len(keys) != 0 {
		t.Errorf("a volume mounted with --backup-meta 0 has backups: %v", keys)
	}
	must(t, other.Unmount(), "unmount the second client")
	v.unmount(t)

	restored := &volume{name: v.name, meta: newMetaURL(t), bucket: v.bucket, dir: filepath.Join(tempDir(t), "mnt")}
	must(t, os.Mkdir(restored.dir, 0o755), "mkdir")
	cairnOK(t, "load", restored.meta, filepath.Join(v.bucket, "meta", after[0]))
	restored.mount(t, "--backup-meta", "0")
	sameTree(t, "after loading backup "+after[0], dumpSnapshot(t, restored.dir), want)
	restored.unmount(t)

	for flag, want := range map[string]string{"soon": "backup-meta", "500ms": "at least 1s", "-1h": "at least 1s"} {
		wantUserError(t, runCairn(t, "mount", v.meta, v.dir, "--backup-meta", flag), want)
	}
}
