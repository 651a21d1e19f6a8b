package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"cairn/volume"
)

// purgeTrashNow removes what has expired in the trash of vol under its
// current settings, with a session of its own, as the trash job of a
// mount would: 'cairn config --trash-days' does it when the days go down.
// The blocks of what it removes are deleted by the next mount's cleaner.
func purgeTrashNow(ctx context.Context, vol *volume.Volume) error {
	client, err := startClient(ctx, vol, "cairn config")
	if err != nil {
		return fmt.Errorf("purge the trash: %w", err)
	}
	defer client.Close(ctx)
	start := time.Now()
	n, err := client.PurgeTrash(ctx, time.Now())
	if err != nil {
		return fmt.Errorf("purge the trash of %s after %d entries: %w", vol.URL, n, err)
	}
	if n > 0 {
		inform(os.Stdout, "removed %d expired entries from the trash in %.1fs", n, time.Since(start).Seconds())
	}
	return nil
}
