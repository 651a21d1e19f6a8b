package dump

import (
	"errors"
	"fmt"
	"strings"

	"cairn/meta"
)

// checker holds a dump to the rules a load relies on, record by record
// and, in finish, as a whole; memory is a bit or two per inode.
type checker struct {
	present  meta.PagedIDSet // inodes with an inode record
	named    meta.PagedIDSet // inodes other records name
	dirs     meta.PagedIDSet // directories with an inode record
	dirNamed meta.PagedIDSet // directories quota and statistics records name
	quotas   meta.PagedIDSet // directories with a quota record
	stats    meta.PagedIDSet // directories with a statistics record
	maxIno   uint64
	maxSlice uint64
}

func newChecker() *checker {
	return &checker{present: meta.NewPagedIDSet(), named: meta.NewPagedIDSet(), dirs: meta.NewPagedIDSet(),
		dirNamed: meta.NewPagedIDSet(), quotas: meta.NewPagedIDSet(), stats: meta.NewPagedIDSet()}
}

func (c *checker) name(ino meta.Ino) error {
	if ino == 0 {
		return errors.New("names inode 0")
	}
	c.named.Add(uint64(ino))
	return nil
}

// nameDir notes that a quota or statistics record names directory ino;
// one the dump already holds as something else is refused at once.
func (c *checker) nameDir(ino meta.Ino, what string) error {
	if ino == 0 {
		return fmt.Errorf("the %s record names inode 0", what)
	}
	if c.present.Has(uint64(ino)) && !c.dirs.Has(uint64(ino)) {
		return fmt.Errorf("the %s record names inode %d, which is not a directory", what, ino)
	}
	c.dirNamed.Add(uint64(ino))
	return nil
}

func (c *checker) record(r *meta.DumpRecord) error {
	switch r.Kind {
	case meta.DumpInode:
		a := &r.Attr
		switch {
		case r.Ino == 0:
			return errors.New("inode 0 is not a valid inode number")
		case !validType(a.Type):
			return fmt.Errorf("inode %d has an unknown file type %d", r.Ino, a.Type)
		case a.Mode > 07777:
			return fmt.Errorf("inode %d has mode %o, beyond 07777", r.Ino, a.Mode)
		case r.Ino == meta.RootIno && a.Type != meta.TypeDirectory:
			return errors.New("the root inode is not a directory")
		}
		if !c.present.Add(uint64(r.Ino)) {
			return fmt.Errorf("inode %d appears twice", r.Ino)
		}
		if a.Type == meta.TypeDirectory {
			c.dirs.Add(uint64(r.Ino))
		}
		if !meta.IsTrashIno(r.Ino) { // the trash's folders have numbers of their own
			c.maxIno = max(c.maxIno, uint64(r.Ino))
		}
	case meta.DumpEntry:
		if err := checkName(r.Name); err != nil {
			return fmt.Errorf("entry %q in directory %d: %w", r.Name, r.Ino, err)
		}
		if !validType(r.Type) {
			return fmt.Errorf("entry %q in directory %d has an unknown file type %d", r.Name, r.Ino, r.Type)
		}
		if err := c.name(r.Ino); err != nil {
			return fmt.Errorf("entry %q %w", r.Name, err)
		}
		if err := c.name(r.Child); err != nil {
			return fmt.Errorf("entry %q %w", r.Name, err)
		}
	case meta.DumpSymlink:
		if r.Target == "" || len(r.Target) > meta.MaxSymlink {
			return fmt.Errorf("symlink %d has a target of %d bytes", r.Ino, len(r.Target))
		}
		return c.name(r.Ino)
	case meta.DumpXattr:
		if r.Name == "" || len(r.Name) > meta.MaxXattrName || len(r.Value) > meta.MaxXattrValue {
			return fmt.Errorf("xattr %q of inode %d is too long or unnamed", r.Name, r.Ino)
		}
		return c.name(r.Ino)
	case meta.DumpChunk:
		for i, s := range r.Slices {
			if uint64(s.Pos)+uint64(s.Len) > meta.ChunkSize || (s.ID != 0 && uint64(s.Off)+uint64(s.Len) > uint64(s.Size)) {
				return fmt.Errorf("slice %d of chunk %d of inode %d lies outside its chunk or its data", i, r.Index, r.Ino)
			}
			c.maxSlice = max(c.maxSlice, s.ID)
		}
		return c.name(r.Ino)
	case meta.DumpQuota:
		q := r.Quota
		if q.MaxSpace < 0 || q.MaxInodes < 0 {
			return fmt.Errorf("the quota of directory %d has a negative limit", r.Ino)
		}
		if !c.quotas.Add(uint64(r.Ino)) {
			return fmt.Errorf("directory %d has two quota records", r.Ino)
		}
		return c.nameDir(r.Ino, "quota")
	case meta.DumpDirStat:
		if !c.stats.Add(uint64(r.Ino)) {
			return fmt.Errorf("directory %d has two statistics records", r.Ino)
		}
		return c.nameDir(r.Ino, "statistics")
	case meta.DumpDeadSlice:
		if r.Slice.ID == 0 {
			return errors.New("dead slice 0 is not a valid slice id")
		}
		c.maxSlice = max(c.maxSlice, r.Slice.ID)
	default:
		return fmt.Errorf("unknown record kind %d", r.Kind)
	}
	return nil
}

func checkName(name string) error {
	switch {
	case name == "" || name == "." || name == "..":
		return errors.New("is not a valid file name")
	case len(name) > meta.MaxName:
		return errors.New("is longer than 255 bytes")
	case strings.ContainsAny(name, "/\x00"):
		return errors.New("holds a '/' or a NUL byte")
	}
	return nil
}

// finish checks what only the whole dump can tell.
func (c *checker) finish(h header) error {
	if !c.present.Has(uint64(meta.RootIno)) {
		return errors.New("the dump has no root directory (inode 1)")
	}
	if ino, ok := c.named.Missing(c.present); ok {
		return fmt.Errorf("inode %d is named by an entry, symlink, xattr or chunk record but has no inode record", ino)
	}
	if ino, ok := c.dirNamed.Missing(c.dirs); ok {
		return fmt.Errorf("a quota or statistics record names inode %d, which is not a directory of the dump", ino)
	}
	if h.NextInode <= c.maxIno {
		return fmt.Errorf("the header's next_inode %d is not above inode %d, which is in use", h.NextInode, c.maxIno)
	}
	if h.NextSlice <= c.maxSlice {
		return fmt.Errorf("the header's next_slice %d is not above slice %d, which is in use", h.NextSlice, c.maxSlice)
	}
	return nil
}
