package backup

import (
	"strings"
	"time"
)

// Prefix is where in a volume's object store its backups are kept.
const Prefix = "meta/"

const (
	keyStart  = Prefix + "dump-"
	keyLayout = "20060102-150405"
	keySuffix = ".bin.gz"
)

// KeyFor names the backup whose dump started at t.
func KeyFor(t time.Time) string {
	return keyStart + t.UTC().Format(keyLayout) + keySuffix
}

// ParseKey is the moment a backup's key names; false for a key that is
// not a backup's.
func ParseKey(key string) (time.Time, bool) {
	rest, ok := strings.CutPrefix(key, keyStart)
	if !ok {
		return time.Time{}, false
	}
	stamp, ok := strings.CutSuffix(rest, keySuffix)
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse(keyLayout, stamp)
	if err != nil {
		return time.Time{}, false
	}
	return t, true
}
