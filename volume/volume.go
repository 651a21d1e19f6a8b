package volume

import (
	"context"
	"errors"
	"fmt"

	"cairn/backup"
	"cairn/chunk"
	"cairn/meta"
	"cairn/meta/engines"
	"cairn/object"
	"cairn/vfs"
)

// Volume is an open volume. OpenMeta fills the first fields only; Open
// fills them all. It is not safe to Close while its parts are in use.
type Volume struct {
	// URL is the metadata URL with any password masked, for messages.
	URL    string
	Engine meta.Engine
	// Format is the volume's settings, as stored in the engine.
	Format meta.Format
	// Formatted is true when Options.Create formatted the volume just now.
	Formatted bool

	Objects object.Store
	Blocks  *chunk.Store
	Client  *meta.Client
	VFS     *vfs.VFS

	backups *backup.Runner
}

// OpenEngine connects to the metadata engine at metaURL, as every opening
// of a volume does; it does not read the volume's settings. Only 'cairn
// format', which may find no volume there, needs it on its own.
func OpenEngine(metaURL string) (meta.Engine, error) {
	return engines.Open(metaURL)
}

// OpenMeta opens the metadata engine at metaURL and reads the volume's
// settings: what commands that look at a volume without mounting it need.
// A URL that holds no volume is an error, unless opts.Create says to
// format one.
func OpenMeta(ctx context.Context, metaURL string, opts Options) (*Volume, error) {
	eng, err := OpenEngine(metaURL)
	if err != nil {
		return nil, err
	}
	v := &Volume{URL: engines.Redact(metaURL), Engine: eng}
	v.Format, err = eng.Load(ctx)
	switch {
	case errors.Is(err, meta.ErrNotFormatted) && opts.Create != nil:
		if err := eng.Init(ctx, *opts.Create, false); err != nil {
			eng.Close()
			return nil, fmt.Errorf("format a throw-away volume at %s: %w", v.URL, err)
		}
		v.Format, v.Formatted = *opts.Create, true
	case errors.Is(err, meta.ErrNotFormatted):
		eng.Close()
		return nil, fmt.Errorf("no cairn volume at %s (run 'cairn format %s NAME' first)", v.URL, v.URL)
	case err != nil:
		eng.Close()
		return nil, fmt.Errorf("read the volume at %s: %w", v.URL, err)
	}
	if err := meta.CheckMoved(ctx, eng); err != nil {
		eng.Close()
		return nil, fmt.Errorf("the volume at %s: %w", v.URL, err)
	}
	return v, nil
}

// Open opens the volume at metaURL for use as a file system: its engine
// and settings, its object and block stores, a client with a session of
// its own, and the VFS. On failure, what was opened is closed again.
func Open(ctx context.Context, metaURL string, opts Options) (*Volume, error) {
	v, err := OpenMeta(ctx, metaURL, opts)
	if err != nil {
		return nil, err
	}
	if err := v.openFileSystem(ctx, opts); err != nil {
		v.Close(context.Background())
		return nil, err
	}
	return v, nil
}

func (v *Volume) openFileSystem(ctx context.Context, opts Options) error {
	var err error
	dumper, canDump := meta.VolumeDumper(v.Engine)
	if v.Objects, err = openObjects(ctx, v.Format, opts.Store, opts.IOTimeout); err != nil {
		return err
	}
	if opts.IOTimeout > 0 {
		// From here on, a server that goes away is waited for.
		v.Engine = meta.WithServerWait(v.Engine, opts.IOTimeout)
	}
	if err := v.wrap(opts); err != nil {
		return err
	}
	if v.Blocks, err = openBlocks(v.Objects, v.Format, opts); err != nil {
		return err
	}
	clientConfig := opts.Client
	if clientConfig.OpenEngine == nil {
		clientConfig.OpenEngine = followMigrations(opts)
	}
	client := meta.NewClient(v.Engine, clientConfig)
	if err := client.Start(ctx); err != nil {
		return fmt.Errorf("register with the volume at %s: %w", v.URL, err)
	}
	v.Client = client
	cfg := opts.VFS
	cfg.MetaURL = v.URL
	if cfg.Root, err = resolveSubdir(ctx, client, opts.Subdir); err != nil {
		return err
	}
	v.VFS = vfs.New(v.Client, v.Blocks, v.Format, cfg)
	v.startBackups(dumper, canDump, opts)
	return nil
}

// Close stops the metadata backups, writes back what the VFS buffers,
// ends the session, waits for the block store's uploads and closes the
// engine, in that order, and returns every failure. Parts that were not opened are skipped.
func (v *Volume) Close(ctx context.Context) error {
	var errs []error
	v.stopBackups()
	if v.VFS != nil {
		if err := v.VFS.Close(ctx); err != nil {
			errs = append(errs, fmt.Errorf("write back: %w", err))
		}
	}
	if v.Client != nil {
		if err := v.Client.Close(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	if v.Blocks != nil {
		if err := v.Blocks.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close the block store: %w", err))
		}
	}
	engine := v.Engine
	if v.Client != nil && v.Client.Followed() {
		// The client closed the engine it left at the switch.
		engine = v.Client.Current()
	}
	if err := engine.Close(); err != nil {
		errs = append(errs, fmt.Errorf("close the metadata engine: %w", err))
	}
	return errors.Join(errs...)
}
