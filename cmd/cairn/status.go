package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"cairn/meta"
	"cairn/meta/engines"
	"cairn/volume"

	"github.com/spf13/cobra"
)

// volumeStatus is what 'cairn status' prints. It never holds a secret:
// passwords in URLs are masked.
type volumeStatus struct {
	Meta     string          `json:"meta"`
	Engine   engineStatus    `json:"engine"`
	Setting  meta.Format     `json:"setting"`
	Usage    usageStatus     `json:"usage"`
	Sessions []sessionStatus `json:"sessions"`
	Quotas   []quotaStatus   `json:"quotas,omitempty"`
}

type engineStatus struct {
	Name       string `json:"name"`
	RoundTrips uint64 `json:"round_trips"`
	Retries    uint64 `json:"retries"`
	// Server is what the engine tells of its server (version, durability).
	Server map[string]string `json:"server,omitempty"`
}

type usageStatus struct {
	UsedSpace  uint64 `json:"used_space"`
	UsedInodes uint64 `json:"used_inodes"`
	Capacity   uint64 `json:"capacity,omitempty"`
	Inodes     uint64 `json:"inodes,omitempty"`
}

type sessionStatus struct {
	ID         uint64    `json:"id"`
	Hostname   string    `json:"hostname"`
	MountPoint string    `json:"mount_point"`
	PID        int       `json:"pid"`
	Version    string    `json:"version"`
	Started    time.Time `json:"started"`
	Heartbeat  time.Time `json:"heartbeat"`
}

func statusCommand() *cobra.Command {
	c := &cobra.Command{
		Use:     "status META-URL",
		Short:   "print a volume's settings, usage and mounted clients as JSON",
		Example: "  cairn status sqlite3:///var/lib/cairn/vol.db\n  cairn status redis://localhost:6379/1 | jq .usage",
		Args:    exactArgs(1),
	}
	c.RunE = func(_ *cobra.Command, pos []string) error {
		metaURL := pos[0]
		ctx := context.Background()
		vol, err := volume.OpenMeta(ctx, metaURL, volume.Options{})
		if err != nil {
			return err
		}
		defer vol.Close(ctx)
		eng, f := vol.Engine, vol.Format
		u, err := eng.Usage(ctx)
		if err != nil {
			return fmt.Errorf("read the usage of volume %q: %w", f.Name, err)
		}
		sessions, err := eng.ListSessions(ctx)
		if err != nil {
			return fmt.Errorf("list the clients of volume %q: %w", f.Name, err)
		}
		f.Bucket = engines.Redact(f.Bucket)
		st := volumeStatus{
			Meta:     vol.URL,
			Setting:  f,
			Usage:    usageStatus{UsedSpace: u.Space, UsedInodes: u.Inodes, Capacity: f.Capacity, Inodes: f.Inodes},
			Sessions: []sessionStatus{},
		}
		for _, s := range sessions {
			st.Sessions = append(st.Sessions, sessionStatus(s))
		}
		stats := eng.Stats()
		st.Engine = engineStatus{Name: eng.Name(), RoundTrips: stats.RoundTrips, Retries: stats.Retries}
		if d, ok := eng.(meta.Describer); ok {
			st.Engine.Server = d.Describe()
		}
		if st.Quotas, err = quotaStatuses(ctx, eng); err != nil {
			return fmt.Errorf("read the quotas of volume %q: %w", f.Name, err)
		}
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(st)
	}
	return c
}
