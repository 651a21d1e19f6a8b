package kv

import (
	"fmt"
	"net/url"
	"strconv"
)

// OpenMem returns a fresh, empty in-memory volume (mem://): every call is a
// new volume, lost when the engine is closed.
func OpenMem() *Engine { return New(NewMemStore(), "") }

// OpenBadgerURL opens badger:///path/dir[?sync=false]. sync=false skips
// fsync on commit (faster; a crash may lose the last operations).
func OpenBadgerURL(rawURL string) (*Engine, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("malformed badger URL %q: %w (expected badger:///path/to/dir)", rawURL, err)
	}
	if u.Host != "" || u.Path == "" {
		return nil, fmt.Errorf("malformed badger URL %q: expected badger:///absolute/path/to/dir (three slashes)", rawURL)
	}
	var o BadgerOptions
	for k, v := range u.Query() {
		switch k {
		case "sync":
			on, err := strconv.ParseBool(v[0])
			if err != nil {
				return nil, fmt.Errorf("badger URL %q: sync=%q is not true or false", rawURL, v[0])
			}
			o.NoSync = !on
		default:
			return nil, fmt.Errorf("badger URL %q: unknown option %q (known: sync)", rawURL, k)
		}
	}
	s, err := OpenBadger(u.Path, o)
	if err != nil {
		return nil, err
	}
	return New(s, ""), nil
}
