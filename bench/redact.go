package bench

import "strings"

// RedactURL masks the password of a URL (redis://:secret@host/1,
// postgres://user:secret@host/db) so that it can be printed or written to a
// report.
func RedactURL(s string) string {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		return s
	}
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return s
	}
	user, _, hasPass := strings.Cut(rest[:at], ":")
	if !hasPass {
		return s
	}
	return scheme + "://" + user + ":****" + rest[at:]
}
