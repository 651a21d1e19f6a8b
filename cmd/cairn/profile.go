package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"cairn/accesslog"
	"cairn/fuse"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func profileCommand() *cobra.Command {
	c := &cobra.Command{
		Use:   "profile MOUNTPOINT|LOGFILE",
		Short: "sum up a mount's access log by operation and by inode: live from a mount, or from a saved log",
		Example: "  cairn profile /mnt/vol\n" +
			"  cairn profile /mnt/vol --interval 5s --duration 1m --top 20\n" +
			"  cat /mnt/vol/.accesslog > access.log; cairn profile access.log",
		Args: exactArgs(1),
	}
	var f profileFlags
	fs := newProfileFlagSet(&f)
	c.Flags().AddFlagSet(fs)
	c.RunE = func(_ *cobra.Command, pos []string) error { return runProfile(fs, f, pos) }
	return c
}

type profileFlags struct {
	interval, duration time.Duration
	top                int
}

func newProfileFlagSet(f *profileFlags) *pflag.FlagSet {
	fs := pflag.NewFlagSet("profile", pflag.ContinueOnError)
	fs.DurationVar(&f.interval, "interval", 2*time.Second, "time between updates of a live profile")
	fs.DurationVar(&f.duration, "duration", 0, "stop a live profile after this long (0: until Ctrl-C)")
	fs.IntVar(&f.top, "top", 10, "how many inodes and names to list")
	return fs
}

func runProfile(fs *pflag.FlagSet, f profileFlags, pos []string) error {
	interval, duration, top := &f.interval, &f.duration, &f.top
	if *top < 1 {
		return fmt.Errorf("--top %d: want at least 1", *top)
	}
	path := pos[0]
	st, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%s does not exist (give the mount point of a cairn mount, or an access log saved from one)", path)
	}
	if err != nil {
		return err
	}
	if !st.IsDir() {
		if fs.Changed("interval") || fs.Changed("duration") {
			return fmt.Errorf("--interval and --duration are for a live profile of a mount; %s is a saved log", path)
		}
		return profileFile(path, *top, os.Stdout)
	}
	if *interval < 100*time.Millisecond {
		return fmt.Errorf("--interval %s is too short (at least 100ms)", *interval)
	}
	if *duration < 0 {
		return fmt.Errorf("--duration %s is negative", *duration)
	}
	return profileMount(path, *interval, *duration, *top)
}

// profileFile sums up a saved access log once.
func profileFile(path string, top int, w io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open the access log: %w", err)
	}
	defer f.Close()
	var s accesslog.Summary
	if err := addLines(&s, nil, f); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if s.Requests == 0 {
		return fmt.Errorf("%s holds no access log line (save one with 'cat MOUNTPOINT/%s > FILE')", path, fuse.AccessLogName)
	}
	renderProfile(w, path, s.Last.Sub(s.First), &s, top)
	return nil
}

// addLines counts every line of r into s, holding mu (when not nil)
// for each.
func addLines(s *accesslog.Summary, mu *sync.Mutex, r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if mu != nil {
			mu.Lock()
		}
		s.AddLine(sc.Text())
		if mu != nil {
			mu.Unlock()
		}
	}
	return sc.Err()
}

// profileMount reads the access log of the mount at dir and shows the
// sums every interval, until duration has passed (0: until a signal).
func profileMount(dir string, interval, duration time.Duration, top int) error {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	f, err := os.Open(filepath.Join(dir, fuse.AccessLogName))
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%s is not the root of a cairn mount (it has no %s file)", dir, fuse.AccessLogName)
	}
	if errors.Is(err, os.ErrPermission) {
		return fmt.Errorf("the access log of %s is readable by root and the user who mounted it only", dir)
	}
	if err != nil {
		return fmt.Errorf("open the access log: %w", err)
	}
	// The reading goroutine may stay blocked on the file until the
	// process exits; the kernel then cancels its read.
	var mu sync.Mutex
	var s accesslog.Summary
	readErr := make(chan error, 1)
	go func() { readErr <- addLines(&s, &mu, f) }()

	start := time.Now()
	terminal := isTerminal(os.Stdout)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)
	var stop <-chan time.Time
	if duration > 0 {
		stop = time.After(duration)
	}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	show := func() {
		if terminal {
			fmt.Print("\x1b[H\x1b[2J") // home, clear: redraw in place
		}
		mu.Lock()
		renderProfile(os.Stdout, dir, time.Since(start), &s, top)
		mu.Unlock()
	}
	for {
		select {
		case <-tick.C:
			show()
			if !terminal {
				fmt.Println()
			}
			continue
		case <-sigs:
		case <-stop:
		case err := <-readErr:
			if err != nil {
				return fmt.Errorf("read the access log of %s: %w", dir, err)
			}
		}
		show()
		return nil
	}
}
