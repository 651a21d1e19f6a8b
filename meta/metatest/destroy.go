package metatest

import (
	"errors"
	"testing"

	"cairn/meta"
)

// testDestroy checks meta.Destroyer on engines that offer it: a volume
// with a tree, data, xattrs, locks, an orphan and a session is gone
// afterwards (Load says not formatted), and the same database takes a
// new volume that starts empty.
func testDestroy(t *testing.T, open func(t *testing.T) meta.Engine) {
	x := newEnv(t, open)
	d, ok := meta.Capability[meta.Destroyer](x.e)
	if !ok {
		t.Skipf("the %s engine cannot destroy a volume", x.e.Name())
	}
	dir := x.mkdir(meta.RootIno, "dir")
	file := x.create(dir, "file")
	x.write(file, 0, 0, 4096)
	x.write(file, 1, 0, 100)
	x.symlink(dir, "link", "file")
	x.must(x.e.SetXattr(x.ctx, meta.RootCred, file, "user.k", []byte("v"), 0), "SetXattr")
	x.must(x.e.Flock(x.ctx, file, meta.LockOwner{Session: x.sid, Owner: 1}, meta.LockWrite), "Flock")
	gone := x.create(meta.RootIno, "orphan")
	x.write(gone, 0, 0, 10)
	x.unlink(meta.RootIno, "orphan")
	quotas, hasQuotas := meta.Capability[meta.QuotaStore](x.e)
	if hasQuotas {
		x.must(quotas.SetQuota(x.ctx, dir, meta.Quota{MaxSpace: 1 << 20, Space: 4096, Inodes: 2}), "SetQuota")
		x.must(quotas.AddQuotaUsage(x.ctx, map[meta.Ino]meta.DirStat{dir: {Space: 4096, Inodes: 1}}, meta.FlushMark{}), "AddQuotaUsage")
	}
	stats, hasStats := meta.Capability[meta.DirStatStore](x.e)
	if hasStats {
		x.must(stats.AddDirStats(x.ctx, map[meta.Ino]meta.DirStat{dir: {Space: 8192, Inodes: 2}}, nil, meta.FlushMark{}), "AddDirStats")
	}

	if err := d.Destroy(x.ctx); err != nil {
		t.Fatalf("Destroy: %v", err)
	}
	if _, err := x.e.Load(x.ctx); !errors.Is(err, meta.ErrNotFormatted) {
		t.Fatalf("Load after Destroy: %v, want ErrNotFormatted", err)
	}
	if err := d.Destroy(x.ctx); err != nil {
		t.Errorf("Destroy of a destroyed volume: %v, want nothing to do", err)
	}
	if err := x.e.Init(x.ctx, volumeFormat("again"), false); err != nil {
		t.Fatalf("Init after Destroy: %v (the old volume's settings are still there?)", err)
	}
	if names := x.names(meta.RootIno); len(names) != 0 {
		t.Errorf("a volume formatted after Destroy lists %q in its root", names)
	}
	if u := x.usage(); u != (meta.Usage{Inodes: 1}) {
		t.Errorf("usage of a volume formatted after Destroy: %+v, want {Space:0 Inodes:1}", u)
	}
	if _, err := x.e.GetAttr(x.ctx, file); !errors.Is(err, meta.ErrNotFound) {
		t.Errorf("GetAttr of a destroyed file: %v, want ErrNotFound", err)
	}
	if list, err := x.e.Read(x.ctx, file, 0); (err != nil && !errors.Is(err, meta.ErrNotFound)) || len(list) != 0 {
		t.Errorf("chunk 0 of a destroyed file: %v, %v; want none", list, err)
	}
	if names, err := x.e.ListXattr(x.ctx, file); err == nil && len(names) != 0 {
		t.Errorf("xattrs of a destroyed file: %q", names)
	}
	if sessions, err := x.e.ListSessions(x.ctx); err != nil || len(sessions) != 0 {
		t.Errorf("sessions after Destroy: %+v, %v; want none", sessions, err)
	}
	if dead, err := x.e.DeadSlices(x.ctx, 10); err != nil || len(dead) != 0 {
		t.Errorf("dead slices after Destroy: %+v, %v; want none", dead, err)
	}
	if hasQuotas {
		if q, err := quotas.Quotas(x.ctx); err != nil || len(q) != 0 {
			t.Errorf("quotas after Destroy: %+v, %v; want none", q, err)
		}
	}
	if hasStats {
		if s, err := stats.AllDirStats(x.ctx); err != nil || len(s) != 0 {
			t.Errorf("directory statistics after Destroy: %+v, %v; want none", s, err)
		}
	}
	x.sid = 0
	x.orphans = map[meta.Ino]bool{}
}
