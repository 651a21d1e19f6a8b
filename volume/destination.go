package volume

import (
	"context"
	"fmt"
	"os"
	"sync"

	"cairn/meta"
	"cairn/meta/engines"
)

// DestinationPasswordEnv holds the password of the database an online
// migration moves a volume to ('cairn migrate SRC-URL DST-URL'): the
// migration record gives every client DST's URL without it, and each
// process takes it from its own environment, as it takes SRC's from
// META_PASSWORD.
const DestinationPasswordEnv = "META_PASSWORD_DST"

// passwordEnv serializes OpenDestination's use of the environment.
var passwordEnv sync.Mutex

// OpenDestination opens the engine at url, a migration's destination,
// with $META_PASSWORD_DST standing for $META_PASSWORD (and
// $REDIS_PASSWORD), which is where the engines read a password that the
// URL lacks: SRC's password never reaches DST's server. The engines read
// it only while they open, so the environment is as it was once
// OpenDestination returns. A destination lent to this process
// (LendDestination) is opened with what was lent instead.
func OpenDestination(url string) (meta.Engine, error) {
	passwordEnv.Lock()
	defer passwordEnv.Unlock()
	password := os.Getenv(DestinationPasswordEnv)
	if d, ok := lent[engines.WithoutPassword(url)]; ok {
		url, password = d.url, d.password
	}
	saved := map[string]string{}
	for _, name := range []string{"META_PASSWORD", "REDIS_PASSWORD"} {
		if v, ok := os.LookupEnv(name); ok {
			saved[name] = v
		}
		os.Unsetenv(name)
	}
	if password != "" {
		os.Setenv("META_PASSWORD", password)
	}
	defer func() {
		os.Unsetenv("META_PASSWORD")
		for name, v := range saved {
			os.Setenv(name, v)
		}
	}()
	return engines.Open(url)
}

// lent are the destinations lent to this process, by their URL without
// password.
var lent = map[string]lentDestination{}

type lentDestination struct{ url, password string }

// LendDestination makes OpenDestination, in this process and until end
// is called, open url (which may hold a password) with password standing
// for $META_PASSWORD_DST, when it is asked for url or for url without its
// password. A migration that runs inside a mount (package control) gets
// DST's URL and password from the command that started it, whose
// environment is not the mount's: the mount's own client, which opens
// the URL without password that the migration record names, needs them
// too.
func LendDestination(url, password string) (end func()) {
	key := engines.WithoutPassword(url)
	passwordEnv.Lock()
	lent[key] = lentDestination{url: url, password: password}
	passwordEnv.Unlock()
	return func() {
		passwordEnv.Lock()
		delete(lent, key)
		passwordEnv.Unlock()
	}
}

// followMigrations is how a mounted client opens the engine a migration
// moves its volume to: as OpenDestination, waiting for a server that goes
// away and wrapped (metrics) as the mount's own engine is.
func followMigrations(opts Options) func(context.Context, string) (meta.Engine, error) {
	return func(_ context.Context, url string) (meta.Engine, error) {
		e, err := OpenDestination(url)
		if err != nil {
			return nil, err
		}
		if opts.IOTimeout > 0 {
			e = meta.WithServerWait(e, opts.IOTimeout)
		}
		if opts.WrapEngine != nil {
			wrapped, err := opts.WrapEngine(e)
			if err != nil {
				e.Close()
				return nil, fmt.Errorf("wrap the metadata engine at %s: %w", engines.Redact(url), err)
			}
			e = wrapped
		}
		return e, nil
	}
}
