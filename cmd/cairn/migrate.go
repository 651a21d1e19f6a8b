package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"cairn/bench/phase"
	"cairn/meta"
	"cairn/meta/engines"
	"cairn/meta/kv"
	"cairn/migrate"
	"cairn/volume"

	"github.com/spf13/cobra"
)

func migrateCommand() *cobra.Command {
	c := &cobra.Command{
		Use:   "migrate SRC-URL|PATH DST-URL",
		Short: "move a volume, mounted or not, from its metadata database to the empty one at DST-URL",
		Long: "Move a volume, mounted or not, from the metadata database at SRC-URL to the empty one at DST-URL.\n" +
			"Mounts keep working: their writes are tracked while the volume is copied, they pause once\n" +
			"(well under a second) at the switch, and then go on with DST-URL without a remount. SRC-URL\n" +
			"is left marked as moved. Interrupting or killing the command before the switch leaves the\n" +
			"volume on SRC-URL; running it again starts over. Every mount must run a cairn that knows\n" +
			"migrations: one that does not acknowledge it within --ack-timeout is named and nothing moves.\n\n" +
			"Given a PATH inside a cairn mount instead of SRC-URL, the migration runs inside that mount's\n" +
			"process, on the mount's own connection to its database: the way to move a mounted Badger\n" +
			"volume, which no other process may open, and the same on every engine. Only root or the user\n" +
			"the mount runs as may start it; the mount's other users may not.\n\n" +
			"The password of SRC-URL may come from $META_PASSWORD, that of DST-URL from $" + volume.DestinationPasswordEnv + "\n" +
			"(each mount reads it there too when it moves; with a PATH the command sends its own to that\n" +
			"mount).\n\n" + metaURLHelp,
		Example: "  cairn migrate sqlite3:///var/lib/cairn/vol.db postgres://cairn@db/cairn\n" +
			"  META_PASSWORD=old META_PASSWORD_DST=new cairn migrate redis://cairn@old:6379/1 etcd://cairn@e1:2379,e2:2379,e3:2379/vol\n" +
			"  META_PASSWORD_DST=new cairn migrate /mnt/vol 'mysql://cairn@(db:3306)/cairn'",
		Args: exactArgs(2),
	}
	ackTimeout := c.Flags().Duration("ack-timeout", time.Minute, "how long every mount has to acknowledge the migration (and, after the switch, to say it follows)")
	pauseTimeout := c.Flags().Duration("pause-timeout", 10*time.Second, "how long every mount has to pause at the switch; past it the migration ends with the volume where it was")
	c.RunE = func(_ *cobra.Command, pos []string) error {
		opts := migrate.Options{AckTimeout: *ackTimeout, PauseTimeout: *pauseTimeout}
		if !strings.Contains(pos[0], "://") {
			return runMigrateMounted(pos[0], pos[1], opts)
		}
		return runMigrate(pos[0], pos[1], opts)
	}
	return c
}

func runMigrate(sourceURL, destinationURL string, opts migrate.Options) error {
	src, dst := engines.Redact(sourceURL), engines.Redact(destinationURL)
	for _, u := range []string{sourceURL, destinationURL} {
		if strings.HasPrefix(u, "mem://") {
			return fmt.Errorf("mem:// keeps a volume inside one process only: nothing could migrate from or to it")
		}
	}
	if sourceURL == destinationURL || src == dst {
		return fmt.Errorf("SRC-URL and DST-URL are the same (%s): give an empty database as DST-URL; nothing was changed", src)
	}
	source, err := engines.Open(sourceURL)
	if errors.Is(err, kv.ErrInUse) {
		return heldSourceError(sourceURL, dst)
	}
	if err != nil {
		return fmt.Errorf("open the source %s: %w", src, err)
	}
	defer source.Close()
	if _, err := source.Load(context.Background()); err != nil {
		if errors.Is(err, meta.ErrNotFormatted) {
			return fmt.Errorf("no cairn volume at %s (is SRC-URL right?); nothing was changed", src)
		}
		return fmt.Errorf("read the source %s: %w; nothing was changed", src, err)
	}
	destination, err := volume.OpenDestination(destinationURL)
	if err != nil {
		return fmt.Errorf("open the destination %s: %w; nothing was changed", dst, err)
	}
	defer destination.Close()
	if _, err := destination.Load(context.Background()); err != nil && !errors.Is(err, meta.ErrNotFormatted) {
		return fmt.Errorf("read the destination %s: %w; nothing was changed", dst, err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	show, done := newMigrateProgress()
	defer done()
	if lease, err := time.ParseDuration(os.Getenv(leaseEnv)); err == nil {
		opts.Lease = lease
	}
	opts.Progress = show.event
	// The record tells every client where to go, and the copy where it
	// came from: the URLs without their passwords, never masked ones.
	err = migrate.Run(ctx, source, destination, engines.WithoutPassword(sourceURL), engines.WithoutPassword(destinationURL), opts)
	show.end()
	if err != nil {
		return migrate.Explain(err, src, dst, ctx.Err() != nil)
	}
	return nil
}

// The tests' hooks, not documented for users. holdEnv, set to a stage
// (copy, catch-up, switch, switched) and optionally ":FILE", makes the
// command stop there, say so on stderr, and wait — until FILE exists, or
// to be killed: how the tests kill a migration, or stop a server under
// it, at a known moment. leaseEnv shortens the record's lease, so that a
// rerun after a kill does not wait 30 seconds.
const (
	holdEnv  = "CAIRN_MIGRATE_TEST_HOLD"
	leaseEnv = "CAIRN_MIGRATE_TEST_LEASE"
)

// migrateProgress shows a migration's stages: a bar per stage on a
// terminal, a line per stage elsewhere.
type migrateProgress struct {
	reporter phase.Reporter
	running  phase.Phase
	records  uint64
	rounds   []string
	hold     *migrate.Hold // holdEnv's stage
}

// newMigrateProgress is the display of a migration's stages, stopping
// at holdEnv's stage when a test sets it; done ends the display.
func newMigrateProgress() (show *migrateProgress, done func()) {
	reporter, done := benchProgress()
	show = &migrateProgress{reporter: reporter}
	show.hold = migrate.NewHold(os.Getenv(holdEnv), func(stage string) { fmt.Fprintf(os.Stderr, "holding at %s\n", stage) })
	return show, done
}

func (p *migrateProgress) start(name string, unit string) {
	p.end()
	p.running = p.reporter.Start(name, 0, unit)
}

// end ends the running stage without a line (it failed).
func (p *migrateProgress) end() {
	if p.running != nil {
		p.running.End("")
		p.running = nil
	}
}

func (p *migrateProgress) finish(line string) {
	if p.running != nil {
		p.running.End(line)
		p.running = nil
	}
}

func (p *migrateProgress) event(e migrate.Event) {
	defer p.hold.At(context.Background(), e) // the tests' hook, after the stage's display
	switch e.Stage {
	case migrate.StageAnnounce:
		if e.Emptied {
			p.reporter.Note("removed the unfinished copy an earlier attempt left in the destination")
		}
		p.reporter.Note(fmt.Sprintf("%d mount(s) track their changes", len(e.Sessions)))
		p.start("copying", "records")
	case migrate.StageBulkCopy:
		if p.running == nil {
			p.start("copying", "records")
		}
		if e.Done {
			p.finish(fmt.Sprintf("copied the volume: %d records", p.records))
			p.start("catching up", "rounds")
			return
		}
		p.running.Add(int64(e.Records - p.records))
		p.records = e.Records
	case migrate.StageCatchUp:
		p.rounds = append(p.rounds, fmt.Sprint(e.Inodes))
		if p.running != nil {
			p.running.Add(1)
		}
	case migrate.StagePause:
		p.finish(fmt.Sprintf("caught up: %d round(s) copied %s inodes", len(p.rounds), strings.Join(p.rounds, ", ")))
		p.start("switching", "inodes")
	case migrate.StageSwitch:
		line := fmt.Sprintf("switched: mounts paused %v, %d inodes copied meanwhile; %d mount(s) follow the volume to the destination",
			e.Pause.Round(time.Millisecond), e.Inodes, len(e.Sessions))
		p.finish(line)
		for _, s := range e.Missing {
			p.reporter.Note(fmt.Sprintf("session %d on %s (pid %d, %s) has not said yet that it follows: it does on its next heartbeat, or fails its operations until remounted",
				s.ID, s.Hostname, s.PID, s.MountPoint))
		}
	}
}
