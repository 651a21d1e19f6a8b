package main

import (
	"context"
	"errors"

	"cairn/meta"
)

// quotaStatus is one directory quota in 'cairn status'.
type quotaStatus struct {
	Path       string `json:"path"`
	UsedSpace  int64  `json:"used_space"`
	UsedInodes int64  `json:"used_inodes"`
	Capacity   int64  `json:"capacity,omitempty"`
	Inodes     int64  `json:"inodes,omitempty"`
}

// quotaStatuses lists the volume's quotas for 'cairn status'; none on an
// engine that keeps no quotas.
func quotaStatuses(ctx context.Context, e meta.Engine) ([]quotaStatus, error) {
	all, err := quotasByPath(ctx, e)
	if errors.Is(err, meta.ErrNotSupported) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := make([]quotaStatus, 0, len(all))
	for _, pq := range all {
		out = append(out, quotaStatus{Path: pq.path, UsedSpace: pq.q.Space, UsedInodes: pq.q.Inodes, Capacity: pq.q.MaxSpace, Inodes: pq.q.MaxInodes})
	}
	return out, nil
}
