package redis

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"cairn/meta"
)

// TestPermLuaMatchesGo runs scripts/perm.lua and meta/perm.go on the same
// table of cases through a real redis-server and wants the same answers,
// so that the Lua port cannot drift from the reference.
func TestPermLuaMatchesGo(t *testing.T) {
	e := formatted(t)
	body, err := os.ReadFile("testdata/perm.lua")
	if err != nil {
		t.Fatal(err)
	}
	lib, _ := scriptFiles.ReadFile("scripts/lib.lua")
	perm, _ := scriptFiles.ReadFile("scripts/perm.lua")
	e.scripts["permtest"] = newScript("permtest", string(lib)+string(perm)+string(body))
	ctx := context.Background()
	now := time.Unix(1700000000, 123456789)

	run := func(cred meta.Cred, args ...any) (string, meta.Attr) {
		t.Helper()
		r, err := e.callAt(ctx, "permtest", cred, now, args...)
		if err != nil {
			t.Fatalf("permtest %v: %v", args[0], err)
		}
		list := r.([]any)
		var a meta.Attr
		if len(list) > 1 {
			if a, err = decodeAttr(list[1].(string)); err != nil {
				t.Fatal(err)
			}
		}
		return list[0].(string), a
	}
	errno := func(err error) string {
		for name, sentinel := range errnos {
			if errors.Is(err, sentinel) {
				return name
			}
		}
		if err != nil {
			return err.Error()
		}
		return ""
	}

	creds := []meta.Cred{
		{}, {Uid: 1000, Gid: 1000}, {Uid: 1000, Gid: 50, Gids: []uint32{1000, 7}},
		{Uid: 1001, Gid: 1001}, {Uid: 1001, Gid: 2000, Gids: []uint32{1000}}, {Uid: 65534, Gid: 65534},
	}
	var attrs []meta.Attr
	for _, typ := range []meta.FileType{meta.TypeFile, meta.TypeDirectory, meta.TypeFIFO} {
		for _, mode := range []uint16{0, 0001, 0010, 0604, 0111, 0644, 0700, 0755, 0770, 0707, 01777, 02775, 02010, 06755, 04711, 02070, 02767, 06767} {
			for _, owner := range [][2]uint32{{1000, 1000}, {0, 0}, {1001, 2000}} {
				attrs = append(attrs, meta.Attr{Type: typ, Mode: mode, Uid: owner[0], Gid: owner[1], Nlink: 1,
					Atime: 1e18 + 5, Mtime: -1, Ctime: 7})
			}
		}
	}
	cases := 0
	for _, c := range creds {
		for i := range attrs {
			a := attrs[i]
			for mask := uint32(0); mask <= 7; mask++ {
				got, _ := run(c, "access", encodeAttr(&a), mask)
				if want := errno(meta.Access(&a, c, mask)); got != want {
					t.Errorf("Access(%+v, %+v, %d): Lua %q, Go %q", a, c, mask, got, want)
				}
				cases++
			}
			victim := attrs[(i*7)%len(attrs)]
			got, _ := run(c, "may_delete", encodeAttr(&a), encodeAttr(&victim))
			if want := errno(meta.MayDelete(&a, &victim, c)); got != want {
				t.Errorf("MayDelete(%+v, %+v, %+v): Lua %q, Go %q", a, victim, c, got, want)
			}
			for _, typ := range []meta.FileType{meta.TypeFile, meta.TypeDirectory, meta.TypeSymlink} {
				for _, mode := range []uint16{0644, 02755, 02710, 06777, 0} {
					_, gotA := run(c, "init_attr", encodeAttr(&a), uint8(typ), mode, uint32(9))
					wantA := meta.InitAttr(&a, c, typ, mode, 9, now.UnixNano())
					if gotA != wantA {
						t.Errorf("InitAttr(%+v, %+v, %d, %o): Lua %+v, Go %+v", a, c, typ, mode, gotA, wantA)
					}
					cases++
				}
			}
			for _, rule := range []struct {
				name string
				fn   func(*meta.Attr, meta.Cred) uint16
			}{{"mode_after_write", meta.ModeAfterWrite}, {"mode_after_chown", meta.ModeAfterChown}} {
				got, _ := run(c, rule.name, encodeAttr(&a))
				if want := fmt.Sprint(rule.fn(&a, c)); got != want {
					t.Errorf("%s(%+v, %+v): Lua %s, Go %s", rule.name, a, c, got, want)
				}
				cases++
			}
			for _, set := range setCases() {
				gotE, gotA := run(c, append([]any{"apply_setattr", encodeAttr(&a)}, setArgs(set)...)...)
				wantA := a
				wantE := errno(meta.ApplySetAttr(&wantA, c, set, now.UnixNano()))
				if gotE != wantE || (wantE == "" && gotA != wantA) {
					t.Errorf("ApplySetAttr(%+v, %+v, %s): Lua %q %+v, Go %q %+v", a, c, describeSet(set), gotE, gotA, wantE, wantA)
				}
				cases++
			}
		}
	}
	t.Logf("%d cases agree", cases)
}

func setCases() []meta.SetAttr {
	m := func(v uint16) *uint16 { return &v }
	u := func(v uint32) *uint32 { return &v }
	ts := func(v int64) *int64 { return &v }
	return []meta.SetAttr{
		{}, {Mode: m(0600)}, {Mode: m(02755)}, {Mode: m(06777)}, {Mode: m(01777)},
		{Uid: u(1000)}, {Uid: u(1001)}, {Gid: u(1000)}, {Gid: u(7)}, {Gid: u(2000)}, {Uid: u(0), Gid: u(0)},
		{Mode: m(02775), Gid: u(7)}, {Mode: m(02775), Gid: u(2000)},
		{Atime: ts(1234567890123456789)}, {Mtime: ts(-5)}, {AtimeNow: true}, {MtimeNow: true},
		{AtimeNow: true, MtimeNow: true}, {Atime: ts(1), MtimeNow: true},
		{ClearSetid: true}, {ClearSetid: true, Mode: m(06777)}, {ClearSetid: true, Gid: u(1000)},
	}
}

func describeSet(s meta.SetAttr) string {
	out := ""
	if s.Mode != nil {
		out += fmt.Sprintf("mode=%o ", *s.Mode)
	}
	if s.Uid != nil {
		out += fmt.Sprintf("uid=%d ", *s.Uid)
	}
	if s.Gid != nil {
		out += fmt.Sprintf("gid=%d ", *s.Gid)
	}
	if s.Atime != nil {
		out += fmt.Sprintf("atime=%d ", *s.Atime)
	}
	if s.Mtime != nil {
		out += fmt.Sprintf("mtime=%d ", *s.Mtime)
	}
	return out + fmt.Sprintf("now=%v/%v clear-setid=%v", s.AtimeNow, s.MtimeNow, s.ClearSetid)
}
