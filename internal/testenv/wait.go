package testenv

import (
	"testing"
	"time"
)

// Eventually polls cond until it holds, failing the test when it still
// does not after a minute; what names the awaited state in that failure.
func Eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for start := time.Now(); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Since(start) > time.Minute {
			t.Fatalf("after a minute, still not %s", what)
		}
	}
}
