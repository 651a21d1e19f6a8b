package vfs

import (
	"context"
	"encoding/json"
	"os"
	"time"

	"cairn/meta"
)

// StatsName is the hidden file in the root that reports the mount's
// counters as JSON (see the package documentation); StatsIno its inode.
const (
	StatsName          = ".stats"
	StatsIno  meta.Ino = 1<<63 - 1
)

func statsAttr(size int) meta.Attr {
	now := time.Now().UnixNano()
	return meta.Attr{Type: meta.TypeFile, Mode: 0444, Nlink: 1, Length: uint64(size), Atime: now, Mtime: now, Ctime: now, Parent: meta.RootIno}
}

// Stats is what .stats holds.
type Stats struct {
	MetaURL string `json:"meta_url,omitempty"`
	// Control is the address of the mount's control channel (package
	// control), where commands given a PATH in the mount send their work.
	Control string `json:"control,omitempty"`
	// PID is the process serving the mount: 'cairn umount' waits for it
	// to finish its uploads and close its session.
	PID           int                       `json:"pid"`
	Ops           map[string]meta.OpSummary `json:"ops"`
	Engine        meta.Stats                `json:"engine"`
	Blocks        any                       `json:"blocks"`
	Usage         meta.Usage                `json:"usage"`
	BufferedBytes uint64                    `json:"buffered_bytes"`
	ReadBytes     uint64                    `json:"read_bytes"`
	WrittenBytes  uint64                    `json:"written_bytes"`
}

// Snapshot gathers the counters of this mount.
func (v *VFS) Snapshot(ctx context.Context) Stats {
	ops := v.metrics.Snapshot()
	for k, s := range v.client.Metrics().Snapshot() {
		ops[k] = s
	}
	u, _ := v.client.Usage(ctx)
	return Stats{
		MetaURL:       v.cfg.MetaURL,
		Control:       v.ControlAddress(),
		PID:           os.Getpid(),
		Ops:           ops,
		Engine:        v.client.Engine().Stats(),
		Blocks:        v.store.Stats(),
		Usage:         u,
		BufferedBytes: v.buffered(),
		ReadBytes:     v.ReadBytes(),
		WrittenBytes:  v.WrittenBytes(),
	}
}

func (v *VFS) statsJSON(ctx context.Context) []byte {
	data, err := json.MarshalIndent(v.Snapshot(ctx), "", "  ")
	if err != nil {
		return []byte("{}\n")
	}
	return append(data, '\n')
}
