package bench

import "testing"

func TestDurabilityFromURL(t *testing.T) {
	for _, c := range []struct{ scheme, url, want string }{
		{"mem", "mem://", "none: memory only"},
		{"sqlite3", "sqlite3:///v.db", "journal_mode=WAL, synchronous=FULL"},
		{"sqlite3", "sqlite3:///v.db?_synchronous=NORMAL", "journal_mode=WAL, synchronous=NORMAL"},
		{"badger", "badger:///d", "fsync on every commit"},
		{"badger", "badger:///d?sync=false", "no fsync on commit (sync=false)"},
		{"etcd", "etcd://127.0.0.1:1,127.0.0.1:2,127.0.0.1:3/vol", "fsync of the Raft log on every commit, 3 members"},
		{"etcd", "etcd://127.0.0.1:1/vol", "fsync of the Raft log on every commit, 1 member"},
	} {
		if got := Durability(c.scheme, c.url); got != c.want {
			t.Errorf("Durability(%q) = %q, want %q", c.url, got, c.want)
		}
	}
}

func TestMysqlArgs(t *testing.T) {
	got := mysqlArgs("u:p@w@(127.0.0.1:3307)/db")
	want := []string{"-h", "127.0.0.1", "-P", "3307", "-u", "u", "-pp@w"}
	if len(got) != len(want) {
		t.Fatalf("%q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%q, want %q", got, want)
		}
	}
}
