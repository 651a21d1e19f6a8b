package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"cairn/chunk"
	"cairn/vfs"

	"github.com/spf13/cobra"
)

func statsCommand() *cobra.Command {
	c := &cobra.Command{
		Use:     "stats MOUNTPOINT",
		Short:   "show what a mount does, live, every second (operations, latencies, throughput, cache, objects)",
		Example: "  cairn stats /mnt/vol\n  cairn stats /mnt/vol --interval 5s --count 12",
		Args:    exactArgs(1),
	}
	fs := c.Flags()
	interval := fs.Duration("interval", time.Second, "time between updates")
	count := fs.Int("count", 0, "stop after this many updates (0: until Ctrl-C)")
	c.RunE = func(_ *cobra.Command, pos []string) error {
		if *interval < 100*time.Millisecond {
			return fmt.Errorf("--interval %s is too short (at least 100ms)", *interval)
		}
		if *count < 0 {
			return fmt.Errorf("--count %d is negative", *count)
		}
		dir, err := filepath.Abs(pos[0])
		if err != nil {
			return err
		}
		prev, err := readMountStats(dir)
		if err != nil {
			return err
		}
		terminal := isTerminal(os.Stdout)
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
		defer signal.Stop(sigs)
		tick := time.NewTicker(*interval)
		defer tick.Stop()
		for n := 0; *count == 0 || n < *count; n++ {
			select {
			case <-sigs:
				return nil
			case <-tick.C:
			}
			cur, err := readMountStats(dir)
			if err != nil {
				return err
			}
			if terminal {
				fmt.Print("\x1b[H\x1b[2J") // home, clear: redraw in place as top does
			} else if n > 0 {
				fmt.Println()
			}
			renderStats(os.Stdout, dir, prev, cur)
			prev = cur
		}
		return nil
	}
	return c
}

// readMountStats reads the .stats file of the mount at dir.
func readMountStats(dir string) (mountSample, error) {
	raw, err := os.ReadFile(filepath.Join(dir, vfs.StatsName))
	if errors.Is(err, os.ErrNotExist) {
		return mountSample{}, fmt.Errorf("%s is not the root of a cairn mount (it has no %s file)", dir, vfs.StatsName)
	}
	if err != nil {
		return mountSample{}, fmt.Errorf("read the counters of the mount at %s: %w", dir, err)
	}
	var s struct {
		vfs.Stats
		Blocks chunk.Stats `json:"blocks"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return mountSample{}, fmt.Errorf("%s/%s is not what a cairn mount writes: %w", dir, vfs.StatsName, err)
	}
	return mountSample{at: time.Now(), stats: s.Stats, blocks: s.Blocks}, nil
}
