package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"cairn/meta"
	"cairn/meta/engines"
	"cairn/volume"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// configFlags are the settings 'cairn config' may change on a formatted
// volume, and those it only names to refuse them with a reason.
type configFlags struct {
	name      string
	compress  string
	capacity  byteSize
	inodes    uint64
	trashDays int

	storage   string
	bucket    string
	blockSize byteSize
}

func configCommand() *cobra.Command {
	c := &cobra.Command{
		Use:     "config META-URL",
		Short:   "show a volume's settings, or change those its data does not depend on",
		Example: "  cairn config sqlite3:///var/lib/cairn/vol.db\n  cairn config sqlite3:///var/lib/cairn/vol.db --capacity 2T --inodes 10000000",
		Args:    exactArgs(1),
	}
	fs := c.Flags()
	var f configFlags
	fs.StringVar(&f.name, "name", "", "new name of the volume (a label: the bucket keeps its place)")
	fs.StringVar(&f.compress, "compress", "", "compression of blocks written from now on: none, lz4 or zstd (stored blocks say how they are compressed)")
	fs.Var(&f.capacity, "capacity", "space limit shown by df, e.g. 100G (0: unlimited)")
	fs.Uint64Var(&f.inodes, "inodes", 0, "limit on the number of files (0: unlimited)")
	fs.IntVar(&f.trashDays, "trash-days", 0, "days a deleted file is kept in .trash (0: no trash); lowering it removes what has expired under the new value at once")
	fs.StringVar(&f.storage, "storage", "", "refused unless unchanged: stored blocks would be left behind")
	fs.StringVar(&f.bucket, "bucket", "", "refused unless unchanged: stored blocks would be left behind")
	fs.Var(&f.blockSize, "block-size", "refused unless unchanged: stored blocks are cut to the volume's block size")
	c.RunE = func(_ *cobra.Command, pos []string) error {
		set := map[string]bool{}
		visitGiven(c.LocalFlags(), func(fl *pflag.Flag) { set[fl.Name] = true })
		if err := checkBudget("capacity", f.capacity); err != nil {
			return err
		}

		ctx := context.Background()
		vol, err := volume.OpenMeta(ctx, pos[0], volume.Options{})
		if err != nil {
			return err
		}
		defer vol.Close(ctx)
		old := vol.Format
		if len(set) == 0 {
			return printSettings(old)
		}
		nf, err := changeSettings(old, f, set)
		if err != nil {
			return err
		}
		if nf == old {
			inform(os.Stdout, "volume %q (uuid %s) unchanged", old.Name, old.UUID)
			return nil
		}
		// A migration copies the settings once, in its bulk copy, and the
		// trash purge changes inodes outside any mount's change log.
		return meta.WriteOutsideMount(ctx, vol.Engine, meta.VolumeWrite, func() error {
			if err := vol.Engine.Init(ctx, nf, true); err != nil {
				return fmt.Errorf("change the settings of volume %q at %s: %w", old.Name, vol.URL, err)
			}
			inform(os.Stdout, "updated volume %q (uuid %s) at %s: %s", nf.Name, nf.UUID, vol.URL, describeChanges(old, nf))
			if nf.TrashDays < old.TrashDays {
				return purgeTrashNow(ctx, vol)
			}
			return nil
		})
	}
	return c
}

// printSettings shows a volume's settings as 'cairn status' does, with
// any password in the bucket masked.
func printSettings(f meta.Format) error {
	f.Bucket = engines.Redact(f.Bucket)
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(f)
}

// changeSettings returns the volume's next settings: the flags given
// replace the old values, the rest stay. Settings that locate or cut the
// stored blocks may only be given with their current value.
func changeSettings(old meta.Format, f configFlags, set map[string]bool) (meta.Format, error) {
	nf := old
	if set["storage"] && f.storage != old.Storage {
		return nf, fmt.Errorf("cannot change the storage of volume %q from %s to %s: its blocks would be left behind", old.Name, old.Storage, f.storage)
	}
	if set["bucket"] && !sameBucket(old, f.bucket) {
		return nf, fmt.Errorf("cannot move volume %q from bucket %s to %s: its blocks would be left behind (move the directory or bucket and keep its name)", old.Name, engines.Redact(old.Bucket), engines.Redact(f.bucket))
	}
	if set["block-size"] && uint32(f.blockSize) != old.BlockSize {
		return nf, fmt.Errorf("cannot change the block size of volume %q from %s to %s: its stored blocks are cut to the old size", old.Name, humanBytes(uint64(old.BlockSize)), humanBytes(uint64(f.blockSize)))
	}
	if set["name"] {
		if !volumeName.MatchString(f.name) {
			return nf, fmt.Errorf("invalid --name %q: use 3 to 63 lowercase letters, digits and hyphens, starting and ending with a letter or digit", f.name)
		}
		nf.Name = f.name
	}
	if set["compress"] {
		switch f.compress {
		case "none", "lz4", "zstd":
		default:
			return nf, fmt.Errorf("unknown --compress %q: use none, lz4 or zstd", f.compress)
		}
		nf.Compression = f.compress
	}
	if set["capacity"] {
		nf.Capacity = uint64(f.capacity)
	}
	if set["inodes"] {
		nf.Inodes = f.inodes
	}
	if set["trash-days"] {
		if f.trashDays < 0 {
			return nf, fmt.Errorf("invalid --trash-days %d: use 0 or more", f.trashDays)
		}
		nf.TrashDays = f.trashDays
	}
	return nf, nil
}

// sameBucket tells whether bucket names the place old's blocks are in.
func sameBucket(old meta.Format, bucket string) bool {
	if old.Storage == "file" {
		abs, err := filepath.Abs(bucket)
		return err == nil && abs == old.Bucket
	}
	return bucket == old.Bucket
}

// describeChanges lists the settings that differ, for the one line
// 'cairn config' prints.
func describeChanges(old, nf meta.Format) string {
	var s string
	add := func(name string, from, to any) {
		if s != "" {
			s += ", "
		}
		s += fmt.Sprintf("%s %v -> %v", name, from, to)
	}
	if nf.Name != old.Name {
		add("name", old.Name, nf.Name)
	}
	if nf.Compression != old.Compression {
		add("compression", old.Compression, nf.Compression)
	}
	if nf.Capacity != old.Capacity {
		add("capacity", old.Capacity, nf.Capacity)
	}
	if nf.Inodes != old.Inodes {
		add("inodes", old.Inodes, nf.Inodes)
	}
	if nf.TrashDays != old.TrashDays {
		add("trash days", old.TrashDays, nf.TrashDays)
	}
	return s
}
