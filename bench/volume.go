// Package bench holds what cairn's benchmarks share: opening a volume to
// measure (formatting it only when it is a throw-away), handing out inode
// numbers and slice ids the way a mounted client does, and describing the
// machine a measurement was taken on. The benchmarks themselves live in
// sub-packages: metabench (per-operation engine latency), fsbench (file
// I/O through a mounted path), floor (metadata operations through a mount
// against the floor of its database) and mdtest (metadata rates on a
// tree).
//
// bench opens a volume's metadata only (volume.OpenMeta) and talks to
// meta.Engine directly: it uses nothing of FUSE, vfs or the object store.
package bench

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"time"

	"cairn/meta"
	"cairn/volume"
)

// Volume is an open metadata engine with a session, ready to be measured.
type Volume struct {
	Engine meta.Engine
	// URL is the engine's URL with any password masked.
	URL string
	// Formatted is true when Open formatted the volume itself, i.e. the URL
	// held no volume and everything on it is the benchmark's own.
	Formatted bool
	// Session is the id of the session the benchmark registered.
	Session uint64
	// Cred is the identity operations run as: the calling process's.
	Cred meta.Cred

	vol *volume.Volume
}

// Open connects to the engine at rawURL. A database that holds no volume is
// formatted as a throw-away one; a formatted volume is used as it is (the
// benchmarks then work inside a directory of their own and remove it).
func Open(ctx context.Context, rawURL string) (*Volume, error) {
	return open(ctx, rawURL, true)
}

// OpenExisting connects to the volume at rawURL and fails when there is
// none: for benchmarks that work on a user's volume and must never format.
func OpenExisting(ctx context.Context, rawURL string) (*Volume, error) {
	return open(ctx, rawURL, false)
}

func open(ctx context.Context, rawURL string, format bool) (*Volume, error) {
	var opts volume.Options
	if format {
		throwaway := throwawayFormat()
		opts.Create = &throwaway
	}
	vol, err := volume.OpenMeta(ctx, rawURL, opts)
	if err != nil {
		return nil, err
	}
	v := &Volume{Engine: vol.Engine, URL: vol.URL, Formatted: vol.Formatted, Cred: ProcessCred(), vol: vol}
	host, _ := os.Hostname()
	v.Session, err = v.Engine.NewSession(ctx, meta.SessionInfo{
		Hostname: host, MountPoint: "(cairn bench)", PID: os.Getpid(),
		Version: "bench", Started: time.Now(), Heartbeat: time.Now(),
	})
	if err != nil {
		vol.Close(ctx)
		return nil, fmt.Errorf("register a benchmark session at %s: %w", v.URL, err)
	}
	return v, nil
}

// Close ends the session and the connection.
func (v *Volume) Close() error {
	err := v.Engine.CloseSession(context.Background(), v.Session)
	if cerr := v.vol.Close(context.Background()); err == nil {
		err = cerr
	}
	return err
}

func throwawayFormat() meta.Format {
	var id [16]byte
	rand.Read(id[:])
	id[6] = id[6]&0x0f | 0x40
	id[8] = id[8]&0x3f | 0x80
	return meta.Format{
		Name:        "cairn-bench",
		UUID:        fmt.Sprintf("%x-%x-%x-%x-%x", id[0:4], id[4:6], id[6:8], id[8:10], id[10:]),
		Storage:     "mem",
		BlockSize:   4 << 20,
		Compression: "none",
		Version:     meta.FormatVersion,
	}
}

// ProcessCred is the identity of the running process, the one the
// benchmarks' operations are checked against.
func ProcessCred() meta.Cred {
	c := meta.Cred{Uid: uint32(os.Getuid()), Gid: uint32(os.Getgid())}
	if gids, err := os.Getgroups(); err == nil {
		for _, g := range gids {
			c.Gids = append(c.Gids, uint32(g))
		}
	}
	return c
}
