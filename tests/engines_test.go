package tests

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"cairn/internal/testenv"
	"cairn/meta/engines"
)

// metaEngines are the metadata engines the suite can run on. Each returns
// the URL of a fresh, empty database for one volume, which several
// processes may open at once. An engine whose tests need a server adds a
// factory here that starts it through internal/testenv; then
// CAIRN_TEST_ENGINE=<name> reruns the whole suite on it.
var metaEngines = map[string]func(t testing.TB) string{
	"sqlite3": func(t testing.TB) string {
		return "sqlite3://" + filepath.Join(tempDir(t), "meta.db")
	},
	"badger": func(t testing.TB) string {
		return "badger://" + filepath.Join(tempDir(t), "meta")
	},
	"redis": func(t testing.TB) string { return testenv.Redis(t).URL(1) },
	"etcd":  func(t testing.TB) string { return testenv.Etcd(t).URL("cairn") },
	"postgres": func(t testing.TB) string {
		return testenv.Postgres(t).URL("postgres")
	},
	"mysql": func(t testing.TB) string {
		s := testenv.MariaDB(t)
		s.SQL(t, "CREATE DATABASE cairn")
		return s.URL("cairn")
	},
}

// engineName is the engine this run of the suite uses.
func engineName() string {
	if e := os.Getenv("CAIRN_TEST_ENGINE"); e != "" {
		return e
	}
	return "sqlite3"
}

// newMetaURL returns the URL of a fresh metadata database on the engine
// under test, or skips while that engine is not built.
func newMetaURL(t testing.TB) string {
	t.Helper()
	name := engineName()
	factory, ok := metaEngines[name]
	if !ok {
		known := make([]string, 0, len(metaEngines))
		for k := range metaEngines {
			known = append(known, k)
		}
		slices.Sort(known)
		t.Fatalf("CAIRN_TEST_ENGINE=%s: the suite knows only %s", name, strings.Join(known, ", "))
	}
	if !slices.Contains(engines.Schemes(), name) {
		t.Skipf("issue 2: the %s metadata engine is not built yet", name)
	}
	return factory(t)
}

// singleProcess reports whether the engine under test lets only one
// process open a volume at a time (Badger), so that tests of a second
// client cannot run on it.
func singleProcess() bool { return engineName() == "badger" }
