package engines

import "testing"

func TestWithoutPassword(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"postgres://cairn:secret@db:5432/vol?sslmode=disable", "postgres://cairn@db:5432/vol?sslmode=disable"},
		{"redis://:p@ss/word@host:6379/1", "redis://@host:6379/1"},
		{"mysql://root:pw@(127.0.0.1:3306)/cairn", "mysql://root@(127.0.0.1:3306)/cairn"},
		{"etcd://user@e1:2379,e2:2379/prefix", "etcd://user@e1:2379,e2:2379/prefix"},
		{"sqlite3:///var/lib/cairn/vol.db", "sqlite3:///var/lib/cairn/vol.db"},
	} {
		if got := WithoutPassword(c.in); got != c.want {
			t.Errorf("WithoutPassword(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
