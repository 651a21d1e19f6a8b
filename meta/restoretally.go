package meta

// RestoreTally is what every Dumper.Restore recomputes from the records
// instead of trusting the input: the volume's usage and each slice's
// reference count. It keeps a bit per slice id (see PagedIDSet) and an entry
// only for the slices that several chunks share, so that a load's memory
// does not grow by an entry per slice: the engine writes each slice's
// reference with a count of one when Record first meets it, and corrects
// the few shared ones from Shared at the end.
type RestoreTally struct {
	usage  Usage
	seen   PagedIDSet
	shared map[uint64]*SharedSlice
}

// SharedSlice is a slice that more than one chunk (or one chunk more than
// once) refers to, with its whole count.
type SharedSlice struct {
	ID   uint64
	Size uint32
	Refs uint64
}

// NewRestoreTally returns an empty tally.
func NewRestoreTally() *RestoreTally {
	return &RestoreTally{seen: NewPagedIDSet(), shared: map[uint64]*SharedSlice{}}
}

// Record counts rec: inodes towards usage (a file's length rounded up to
// 4 KiB as space), and a chunk's slices towards their references. first is
// called for each slice id (never 0, a hole) the first time a chunk names
// it; its error stops the tally and is returned.
func (t *RestoreTally) Record(rec *DumpRecord, first func(Slice) error) error {
	switch rec.Kind {
	case DumpInode:
		t.usage.Inodes++
		t.usage.Space += SpaceOf(&rec.Attr)
	case DumpChunk:
		for _, s := range rec.Slices {
			if s.ID == 0 {
				continue
			}
			if t.seen.Add(s.ID) {
				if err := first(s); err != nil {
					return err
				}
				continue
			}
			if shared := t.shared[s.ID]; shared != nil {
				shared.Refs++
			} else {
				t.shared[s.ID] = &SharedSlice{ID: s.ID, Size: s.Size, Refs: 2}
			}
		}
	}
	return nil
}

// Usage is the usage of the records counted so far.
func (t *RestoreTally) Usage() Usage { return t.usage }

// Shared calls fn for each slice referred to more than once, in no
// particular order, with its whole count.
func (t *RestoreTally) Shared(fn func(SharedSlice) error) error {
	for _, s := range t.shared {
		if err := fn(*s); err != nil {
			return err
		}
	}
	return nil
}

// SpaceOf is the space an inode counts towards usage: a regular file's
// length rounded up to 4 KiB, nothing for other types.
func SpaceOf(a *Attr) uint64 {
	if a.Type != TypeFile {
		return 0
	}
	return (a.Length + 4095) &^ 4095
}
