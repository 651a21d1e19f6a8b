package engines

import "testing"

func TestRedact(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"sqlite3:///var/lib/cairn/vol.db", "sqlite3:///var/lib/cairn/vol.db"},
		{"redis://:secret@127.0.0.1:6379/1", "redis://:****@127.0.0.1:6379/1"},
		{"postgres://cairn:p%40ss/word@db:5432/vol", "postgres://cairn:****@db:5432/vol"},
		{"postgres://u:p@w@127.0.0.1/db", "postgres://u:****@127.0.0.1/db"},
		{"mysql://root:pw@(127.0.0.1:3306)/vol", "mysql://root:****@(127.0.0.1:3306)/vol"},
		{"mysql://root@(127.0.0.1:3306)/cairn", "mysql://root@(127.0.0.1:3306)/cairn"},
		{"redis://user@host/1", "redis://user@host/1"},
		{"/plain/path", "/plain/path"},
	} {
		if got := Redact(c.in); got != c.want {
			t.Errorf("Redact(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
