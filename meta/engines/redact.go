package engines

import (
	"net/url"
	"strings"
)

// Redact masks the password in a metadata URL
// (redis://:secret@host/1, postgres://user:secret@host/db) so that the URL
// can be printed, logged or written to a report.
func Redact(rawURL string) string {
	head, user, tail, ok := splitPassword(rawURL)
	if !ok {
		return rawURL
	}
	if u, err := url.PathUnescape(user); err == nil {
		user = u
	}
	return head + user + ":****" + tail
}

// WithoutPassword is rawURL with the password of its user information
// left out (postgres://user:secret@host/db → postgres://user@host/db):
// what may be told to every client, each of which adds the password from
// its own environment.
func WithoutPassword(rawURL string) string {
	head, user, tail, ok := splitPassword(rawURL)
	if !ok {
		return rawURL
	}
	return head + user + tail
}

// splitPassword cuts a URL with a password in its user information into
// what comes before the user ("scheme://"), the user, and what follows the
// password ("@host/..."); ok is false when the URL has no password.
func splitPassword(rawURL string) (head, user, tail string, ok bool) {
	scheme, rest, found := strings.Cut(rawURL, "://")
	if !found {
		return "", "", "", false
	}
	// The last '@' ends the user information: a password may contain '@'
	// and '/', a host or database path contains no '@'.
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return "", "", "", false
	}
	user, _, hasPassword := strings.Cut(rest[:at], ":")
	if !hasPassword {
		return "", "", "", false
	}
	return scheme + "://", user, rest[at:], true
}
