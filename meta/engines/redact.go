package engines

import (
	"net/url"
	"strings"
)

// Redact masks the password in a metadata URL
// (redis://:secret@host/1, postgres://user:secret@host/db) so that the URL
// can be printed, logged or written to a report.
func Redact(rawURL string) string {
	scheme, rest, ok := strings.Cut(rawURL, "://")
	if !ok {
		return rawURL
	}
	// The last '@' ends the user information: a password may contain '@'
	// and '/', a host or database path contains no '@'.
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return rawURL
	}
	user, _, hasPass := strings.Cut(rest[:at], ":")
	if !hasPass {
		return rawURL
	}
	if u, err := url.PathUnescape(user); err == nil {
		user = u
	}
	return scheme + "://" + user + ":****" + rest[at:]
}
