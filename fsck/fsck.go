package fsck

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	"cairn/meta"
	"cairn/object"
)

// DefaultWorkers is how many objects Check asks the store about at once.
const DefaultWorkers = 32

// Options say what Check looks at.
type Options struct {
	// Path limits the report to the tree at this path of the volume ("" or
	// "/": the whole volume). The whole metadata is read either way: an
	// inode's link count depends on entries anywhere.
	Path string
	// Store, when set, is the volume's object store: every object a file
	// under Path needs is looked up there. BlockSize is the volume's.
	Store     object.Store
	BlockSize int
	Workers   int // DefaultWorkers when 0
	// Progress, when set, is kept up to date as Check runs.
	Progress *Progress
}

// Progress counts what Check has done so far; safe to read while it runs.
type Progress struct {
	Records      atomic.Uint64 // metadata records read
	Objects      atomic.Uint64 // objects looked up
	ObjectsTotal atomic.Uint64 // objects to look up (known once the metadata is read)
}

// Report is what Check found.
type Report struct {
	Inodes   uint64
	Records  uint64
	Objects  uint64 // objects looked up
	Problems []Problem
	// UsageNote says why the usage counters were not checked ("" when
	// they were).
	UsageNote string
	// InLostFound counts the files in /lost+found that lack objects: an
	// earlier repair put them there, they are not problems again.
	InLostFound int
}

// Check reads the volume's metadata in one snapshot (meta.Dumper) and
// reports what is broken, sorted by path. It changes nothing. What it
// holds: about 100 bytes per inode plus the first name of each, 24 bytes
// per slice record, and one bit per slice id handed out.
func Check(ctx context.Context, eng meta.Engine, opts Options) (*Report, error) {
	dumper, ok := meta.Capability[meta.Dumper](eng)
	if !ok {
		return nil, fmt.Errorf("the %s engine cannot be read in one snapshot, which fsck needs", eng.Name())
	}
	top, err := meta.ResolvePath(ctx, eng, opts.Path)
	if err != nil {
		return nil, err
	}
	progress := opts.Progress
	if progress == nil {
		progress = &Progress{}
	}
	orphansBefore, orphansErr := orphans(ctx, eng)
	s := newScan(&progress.Records)
	if err := dumper.Dump(ctx, s); err != nil {
		return nil, fmt.Errorf("read the metadata: %w", err)
	}
	orphansAfter, err := orphans(ctx, eng)
	if orphansErr == nil {
		orphansErr = err
	}
	s.checkTree()
	s.checkDead()
	held := map[meta.Ino]bool{}
	for _, ino := range append(orphansBefore, orphansAfter...) {
		held[ino] = true
	}
	s.checkStray(held)
	report := &Report{Inodes: uint64(len(s.nodes)), Records: progress.Records.Load()}
	switch {
	case top != meta.RootIno:
		report.UsageNote = "the usage counters are checked only with the whole volume"
	case orphansErr != nil:
		report.UsageNote = fmt.Sprintf("the usage counters were not checked: %v", orphansErr)
	case len(orphansBefore) > 0 || len(orphansAfter) > 0:
		report.UsageNote = fmt.Sprintf("the usage counters were not checked: clients hold %d files unlinked while open, which they count", max(len(orphansBefore), len(orphansAfter)))
	default:
		s.checkUsage()
	}
	sc := s.scope(top)
	if opts.Store != nil {
		workers := opts.Workers
		if workers <= 0 {
			workers = DefaultWorkers
		}
		if err := s.checkObjects(ctx, opts.Store, opts.BlockSize, workers, sc, &progress.Objects, &progress.ObjectsTotal); err != nil {
			return nil, err
		}
		report.Objects = progress.Objects.Load()
	}
	for _, p := range s.problems {
		if p.Kind != WrongUsage && !sc.has(p.Ino) {
			continue
		}
		p.Path = s.path(p.Ino)
		if p.Kind == MissingObject && strings.HasPrefix(p.Path, "/"+LostFound+"/") {
			report.InLostFound++
			continue
		}
		report.Problems = append(report.Problems, p)
	}
	slices.SortStableFunc(report.Problems, func(a, b Problem) int { return strings.Compare(a.Path, b.Path) })
	return report, nil
}

// orphans lists the inodes sessions hold unlinked; an engine that cannot
// say is an error, as then the usage cannot be checked.
func orphans(ctx context.Context, eng meta.Engine) ([]meta.Ino, error) {
	l, ok := meta.Capability[meta.OrphanLister](eng)
	if !ok {
		return nil, fmt.Errorf("the %s engine cannot list files unlinked while open", eng.Name())
	}
	return l.Orphans(ctx)
}
