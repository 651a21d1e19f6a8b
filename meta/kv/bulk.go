package kv

import (
	"context"
	"time"
)

// A load's commits and a dump's reads are bulk requests: large, many, and
// waited for by no application, so a store gives each a longer deadline
// than an operation of a mount, whose caller must hear EIO in bounded
// time. On a machine loaded enough that a 128-write etcd commit takes
// more than etcdRequestTimeout, a load goes on instead of failing. (A
// load's commit that times out is also sent again: its puts are blind, so
// applying them twice changes nothing; see batch.)
const (
	bulkRequestTimeout = 30 * time.Second
	bulkRetryWindow    = time.Minute
)

type bulkKey struct{}

// withBulk marks ctx's requests as bulk.
func withBulk(ctx context.Context) context.Context {
	return context.WithValue(ctx, bulkKey{}, true)
}

// isBulk reports whether ctx's requests are bulk.
func isBulk(ctx context.Context) bool {
	b, _ := ctx.Value(bulkKey{}).(bool)
	return b
}
