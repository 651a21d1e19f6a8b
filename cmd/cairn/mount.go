package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"cairn/fuse"
	"cairn/meta"
	"cairn/metrics"
	"cairn/vfs"
	"cairn/volume"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// readyEnv tells a re-executed mount process that it runs in the
// background and reports readiness on file descriptor 3.
const readyEnv = "CAIRN_MOUNT_READY_FD"

func mountCommand() *cobra.Command {
	c := &cobra.Command{
		Use:   "mount META-URL MOUNTPOINT",
		Short: "mount a volume (foreground; -d to run in the background)",
		Example: "  cairn mount sqlite3:///var/lib/cairn/vol.db /mnt/vol -d\n" +
			"  META_PASSWORD=secret cairn mount postgres://cairn@db/cairn /mnt/vol -d --cache-size 100G -o allow_other\n" +
			"  cairn mount redis://localhost:6379/1 /mnt/vol -d --update-fstab",
		Args: exactArgs(2),
	}
	var f mountFlags
	mountFlagSet := newMountFlagSet(&f)
	c.Flags().AddFlagSet(mountFlagSet)
	c.RunE = func(_ *cobra.Command, pos []string) error {
		return runMount(mountFlagSet, f, pos, commandLine(c.Flags(), pos))
	}
	return c
}

type mountFlags struct {
	background    bool
	cacheDir      string
	cacheSize     byteSize
	bufferSize    byteSize
	attrCache     time.Duration
	entryCache    time.Duration
	dirEntryCache time.Duration
	ioTimeout     time.Duration
	readOnly      bool
	options       stringList
	logFile       string
	debug         bool
	metrics       metricsAddress
	backupMeta    time.Duration
	store         storeFlags
	data          dataFlags
	updateFstab   bool
	fstab         string
	subdir        string
}

// runMount mounts pos[0] at pos[1]; fs holds the mount's own flags, args
// the whole command line, which a background mount runs again.
func runMount(fs *pflag.FlagSet, f mountFlags, pos, args []string) error {
	var err error
	metaURL, mountpoint := pos[0], pos[1]
	if f.ioTimeout <= 0 {
		return fmt.Errorf("--io-timeout must be positive, e.g. 1m")
	}
	if err := checkBudget("cache-size", f.cacheSize); err != nil {
		return err
	}
	if err := checkBudget("buffer-size", f.bufferSize); err != nil {
		return err
	}
	if f.backupMeta < 0 || (f.backupMeta > 0 && f.backupMeta < volume.MinBackupInterval) {
		return fmt.Errorf("--backup-meta must be 0 (no backups) or at least %v, e.g. 1h", volume.MinBackupInterval)
	}
	if mountpoint, err = checkMountpoint(mountpoint); err != nil {
		return err
	}
	if err := maybeUpdateFstab(fs, f, metaURL, mountpoint); err != nil {
		return err
	}
	if mounted, err := isMounted(mountpoint); err == nil && mounted {
		return fmt.Errorf("%s is already a mount point (run 'cairn umount %s' first)", mountpoint, mountpoint)
	}
	if f.background && os.Getenv(readyEnv) == "" {
		return daemonize(args, f)
	}
	return serveMount(metaURL, mountpoint, f)
}

// newMountFlagSet defines the flags of 'cairn mount' into f; mount.cairn
// reads the same set to turn -o options into flags.
func newMountFlagSet(f *mountFlags) *pflag.FlagSet {
	fs := pflag.NewFlagSet("mount", pflag.ContinueOnError)
	f.cacheSize = 1 << 30
	f.bufferSize = 300 << 20
	f.metrics.addr = metrics.DefaultAddress
	fs.BoolVarP(&f.background, "background", "d", false, "run in the background; return once the volume is mounted")
	fs.StringVar(&f.cacheDir, "cache-dir", defaultCacheDir(), "directory of the local block cache (\"\" for none)")
	fs.Var(&f.cacheSize, "cache-size", "size of the local block cache, e.g. 10G (a number without a unit is bytes; under 1 MiB is refused)")
	fs.Var(&f.bufferSize, "buffer-size", "memory for writes not yet uploaded, e.g. 300M (a number without a unit is bytes; under 1 MiB is refused)")
	fs.DurationVar(&f.attrCache, "attr-cache", time.Second, "how long attributes are cached")
	fs.DurationVar(&f.entryCache, "entry-cache", time.Second, "how long file names are cached")
	fs.DurationVar(&f.dirEntryCache, "dir-entry-cache", time.Second, "how long directory names are cached")
	fs.DurationVar(&f.ioTimeout, "io-timeout", meta.DefaultIOTimeout, "how long an operation waits for a metadata server or object store that does not answer before it fails with EIO")
	fs.BoolVar(&f.readOnly, "read-only", false, "mount read-only")
	fs.VarP(&f.options, "options", "o", "FUSE mount options, comma-separated (allow_other, writeback_cache, default_permissions, ...)")
	fs.StringVar(&f.logFile, "log", "", "log file in the background (default CACHE-DIR/mount.log, or stderr in the foreground)")
	fs.BoolVar(&f.debug, "debug", false, "log every FUSE request")
	fs.Var(&f.metrics, "metrics", "serve Prometheus metrics at HOST:PORT/metrics (when the default is taken, the next free port; off to disable)")
	fs.DurationVar(&f.backupMeta, "backup-meta", time.Hour, "how often one of the volume's clients writes a backup of its metadata into the object store under meta/ (0: never)")
	f.store.register(fs)
	f.data.register(fs)
	fs.BoolVar(&f.updateFstab, "update-fstab", false, "add this mount (META-URL, MOUNTPOINT and the flags given) to /etc/fstab, or replace the line of MOUNTPOINT there, then mount")
	fs.StringVar(&f.fstab, "fstab", defaultFstab, "the file --update-fstab edits")
	fs.StringVar(&f.subdir, "subdir", "", "mount only this directory of the volume (a path from its root); nothing outside it is reachable through the mount")
	return fs
}

func defaultCacheDir() string {
	if os.Geteuid() == 0 {
		return "/var/cache/cairn"
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "cairn")
	}
	return filepath.Join(os.TempDir(), "cairn-cache")
}

func checkMountpoint(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("mountpoint %q: %w", dir, err)
	}
	st, err := os.Stat(abs)
	if errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("mountpoint %s does not exist (create it with mkdir first)", abs)
	}
	if errors.Is(err, syscall.ENOTCONN) {
		return "", fmt.Errorf("%s is a mount whose process has died (run 'cairn umount --force %s')", abs, abs)
	}
	if err != nil {
		return "", fmt.Errorf("mountpoint %s: %w", abs, err)
	}
	if !st.IsDir() {
		return "", fmt.Errorf("mountpoint %s is not a directory", abs)
	}
	return abs, nil
}

// daemonize runs this command again in a new session and waits until that
// process reports that the volume is mounted, or why it is not.
func daemonize(args []string, f mountFlags) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find the cairn binary to run in the background: %w", err)
	}
	logPath := f.logFile
	if logPath == "" {
		dir := f.cacheDir
		if dir == "" {
			dir = os.TempDir()
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("create the cache directory %s: %w", dir, err)
		}
		logPath = filepath.Join(dir, "mount.log")
	}
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("open the log file %s: %w", logPath, err)
	}
	defer logf.Close()
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	cmd := exec.Command(self, append([]string{"mount"}, args...)...)
	cmd.Args[0] = "cairn" // not mount.cairn: the child is a plain mount
	cmd.Env = append(os.Environ(), readyEnv+"=3")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, logf, logf
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	stopProfiling()
	if err := cmd.Start(); err != nil {
		w.Close()
		r.Close()
		return fmt.Errorf("start the background mount: %w", err)
	}
	w.Close()
	defer r.Close()
	line, _ := bufio.NewReader(r).ReadString('\n')
	line = strings.TrimSpace(line)
	if line == "ok" {
		_ = cmd.Process.Release()
		return nil
	}
	_ = cmd.Wait()
	if line == "" {
		return fmt.Errorf("the background mount exited before mounting (see %s)", logPath)
	}
	return errors.New(line)
}

// readyReporter tells a waiting parent how the mount went; a no-op in the
// foreground.
type readyReporter struct{ w io.WriteCloser }

func newReadyReporter() *readyReporter {
	if os.Getenv(readyEnv) == "" {
		return &readyReporter{}
	}
	return &readyReporter{w: os.NewFile(3, "ready")}
}

func (r *readyReporter) done(err error) {
	if r.w == nil {
		return
	}
	if err != nil {
		fmt.Fprintln(r.w, oneLine(err.Error()))
	} else {
		fmt.Fprintln(r.w, "ok")
	}
	r.w.Close()
	r.w = nil
}

func serveMount(metaURL, mountpoint string, f mountFlags) (err error) {
	ready := newReadyReporter()
	defer func() { ready.done(err) }()
	if err := f.data.check(f.cacheDir); err != nil {
		return err
	}
	opts, err := fuseOptions(f, os.Geteuid() == 0)
	if err != nil {
		return err
	}
	slog.Debug("mount settings", "cache-dir", f.cacheDir, "cache-size", uint64(f.cacheSize), "buffer-size", uint64(f.bufferSize),
		"attr-cache", f.attrCache, "entry-cache", f.entryCache, "io-timeout", f.ioTimeout, "writeback", f.data.writeback)
	host, _ := os.Hostname()
	ctx := context.Background()
	mm, err := openMetrics(f.metrics)
	if err != nil {
		return err
	}
	defer mm.close()
	volOpts := volume.Options{
		Store:      f.store.options(),
		CacheDir:   f.cacheDir,
		IOTimeout:  f.ioTimeout,
		BackupMeta: f.backupMeta,
		Blocks:     f.data.blocks(int64(f.bufferSize), int64(f.cacheSize)),
		Client: meta.ClientConfig{
			AttrTimeout:     f.attrCache,
			EntryTimeout:    f.entryCache,
			DirEntryTimeout: f.dirEntryCache,
			CheckPermission: !opts.DefaultPermissions,
			Session: meta.SessionInfo{
				Hostname: host, MountPoint: mountpoint, PID: os.Getpid(), Version: versionString(),
			},
		},
		VFS:    vfs.Config{ReadOnly: opts.ReadOnly, CheckPermission: !opts.DefaultPermissions},
		Subdir: f.subdir,
	}
	mm.instrument(&volOpts)
	vol, err := volume.Open(ctx, metaURL, volOpts)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := vol.Close(context.Background()); cerr != nil {
			slog.Error("close the volume on unmount", "err", cerr)
		}
	}()
	opts.FsName = "cairn:" + vol.Format.Name
	metricsAddr, err := mm.serve(vol)
	if err != nil {
		return fmt.Errorf("serve metrics: %w", err)
	}
	v := vol.VFS

	// Catch signals before the kernel lists the mount: a service manager
	// may stop us the moment it appears, and dying by the default action
	// would leave the mount behind, unflushed.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	ctl := listenControl(v, opts.AllowOther)
	defer ctl.close()
	srv, err := fuse.Mount(v, mountpoint, opts)
	if err != nil {
		return err
	}
	ctl.serve(srv, v)
	slog.Info("mounted", "volume", vol.Format.Name, "mountpoint", mountpoint, "session", vol.Client.Session(), "metrics", metricsAddr)
	ready.done(nil)
	if err := notifySystemd("READY=1"); err != nil {
		slog.Warn("readiness not reported", "err", err)
	}

	served := make(chan struct{})
	go func() { srv.Wait(); close(served) }()
	select {
	case <-served:
		slog.Info("unmounted from outside", "mountpoint", mountpoint)
		return nil
	case s := <-sigs:
		slog.Info("unmounting", "signal", s.String(), "mountpoint", mountpoint)
	}
	_ = notifySystemd("STOPPING=1")
	if err := v.FlushAll(ctx); err != nil {
		slog.Error("write back before unmount", "err", err)
	}
	if err := fuse.Unmount(srv); err != nil {
		slog.Warn("unmount busy; detaching lazily", "err", err)
		_ = exec.Command("fusermount3", "-u", "-z", mountpoint).Run()
	}
	<-served
	return nil
}

// fuseOptions are the FUSE mount options the flags stand for; an unknown
// -o option is an error. For root every user may enter the mount
// (allow_other) and the kernel checks permissions (default_permissions).
// allow_other always brings default_permissions: cairn checks permission
// bits when a name is looked up, but the kernel walks a path it has
// cached without asking, so without its own checks another user would
// reach files through directories closed to them.
func fuseOptions(f mountFlags, root bool) (fuse.Options, error) {
	opts := fuse.Options{ReadOnly: f.readOnly, Debug: f.debug}
	for _, o := range f.options {
		for _, opt := range strings.Split(o, ",") {
			switch opt {
			case "":
			case "allow_other":
				opts.AllowOther = true
			case "default_permissions":
				opts.DefaultPermissions = true
			case "writeback_cache":
				opts.WritebackCache = true
			case "ro":
				opts.ReadOnly = true
			default:
				if err := checkKernelOption(opt); err != nil {
					return opts, err
				}
				opts.Extra = append(opts.Extra, opt)
			}
		}
	}
	if root {
		opts.AllowOther = true
	}
	if opts.AllowOther {
		opts.DefaultPermissions = true
	}
	return opts, nil
}
