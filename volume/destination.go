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
// OpenDestination returns.
func OpenDestination(url string) (meta.Engine, error) {
	passwordEnv.Lock()
	defer passwordEnv.Unlock()
	saved := map[string]string{}
	for _, name := range []string{"META_PASSWORD", "REDIS_PASSWORD"} {
		if v, ok := os.LookupEnv(name); ok {
			saved[name] = v
		}
		os.Unsetenv(name)
	}
	if password := os.Getenv(DestinationPasswordEnv); password != "" {
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
