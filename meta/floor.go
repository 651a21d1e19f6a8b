package meta

import "context"

// FloorProber is an optional interface of an Engine: the cheapest durable
// write and the cheapest read its database offers, so that a benchmark can
// set every operation's time beside the floor it cannot go below, measured
// on the same server in the same run.
//
// ProbeWrite makes one durable write of a small record under a scratch key
// (or row) that the volume does not use: one request, acknowledged with the
// durability the engine runs every commit at (Redis: the server's own
// appendfsync; SQL: one autocommit statement at the database's, or SQLite's
// synchronous, setting; etcd: one Put through Raft; Badger: one committed
// transaction at the engine's sync setting). ProbeRead makes one plain read
// of that record (one GET, one indexed SELECT), of a record that may not
// exist yet. Neither touches the volume's files, counters or usage; both
// are safe for concurrent use, also with every Engine method. The first
// call may prepare the scratch place (a table) and be slower.
type FloorProber interface {
	ProbeWrite(ctx context.Context) error
	ProbeRead(ctx context.Context) error
}
