package vfs

import (
	"context"
	"sync"

	"cairn/meta"
)

// DirPage is how many entries one Engine.Readdir call of a listing
// fetches. A page shorter than that is the directory's last, so a listing
// of up to DirPage entries costs one engine call.
const DirPage = 1000

// dirStream is an open directory: the entries read so far, "." and ".."
// first. Entry i has offset i+1; pages are fetched by name, so entries
// added or removed while a listing runs do not shift the others.
type dirStream struct {
	mu      sync.Mutex
	ino     meta.Ino
	entries []meta.Entry
	done    bool
}

// OpenDir opens directory ino for listing. Its attributes may come from
// the client's cache, as the kernel's own permission check and its look-up
// of the directory did: the entries are read from the engine afresh at
// every listing's start (offset 0), and a directory removed meanwhile
// fails there (ENOENT).
func (v *VFS) OpenDir(ctx context.Context, cred meta.Cred, ino meta.Ino) (uint64, error) {
	a, err := v.client.GetAttr(ctx, ino)
	if err != nil {
		return 0, err
	}
	if !a.IsDir() {
		return 0, meta.ErrNotDir
	}
	if v.cfg.CheckPermission {
		if err := meta.Access(&a, cred, meta.MayRead); err != nil {
			return 0, err
		}
	}
	return v.addHandle(&handle{ino: ino, dir: &dirStream{ino: ino}}), nil
}

// DirFiller takes the entries of a listing one by one: e and, with plus,
// its attributes (nil when they could not be read), and next, the offset
// that resumes the listing after e. It returns false to stop (its buffer
// is full; e was not taken). attr is only valid during the call.
type DirFiller func(e *meta.Entry, attr *meta.Attr, next uint64) bool

// ReadDir passes the entries of directory handle fh from offset on (0 is
// the start; each entry's offset is its index plus one) to fill, until
// fill returns false or the listing ends. With plus, each entry comes with
// its attributes, as this client sees them (data it has not flushed yet
// included). Entries are fetched from the engine only as fill asks for
// them.
func (v *VFS) ReadDir(ctx context.Context, fh uint64, offset uint64, plus bool, fill DirFiller) error {
	h, err := v.handle(fh)
	if err != nil {
		return err
	}
	d := h.dir
	if d == nil {
		return meta.ErrNotDir
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if offset == 0 {
		// A new listing (or rewinddir): start afresh.
		d.entries, d.done = nil, false
		if err := v.dotEntries(ctx, d); err != nil {
			return err
		}
	}
	var a meta.Attr // fill's, reused: it escapes, so one allocation per request
	for i := offset; ; i++ {
		for i >= uint64(len(d.entries)) {
			if d.done {
				return nil
			}
			if err := v.nextPage(ctx, d, plus); err != nil {
				return err
			}
		}
		e := &d.entries[i]
		if !plus {
			if !fill(e, nil, i+1) {
				return nil
			}
			continue
		}
		if e.Attr != nil {
			a = *e.Attr
		} else {
			got, err := v.client.GetAttr(ctx, e.Ino)
			if err != nil {
				if !fill(e, nil, i+1) {
					return nil
				}
				continue
			}
			a = got
		}
		a = v.overlay(e.Ino, a)
		if !fill(e, &a, i+1) {
			return nil
		}
	}
}

// nextPage appends the next page of d's entries, or marks d done.
func (v *VFS) nextPage(ctx context.Context, d *dirStream, plus bool) error {
	after := ""
	if n := len(d.entries); n > 2 {
		after = d.entries[n-1].Name
	}
	page, err := v.client.Readdir(ctx, d.ino, after, DirPage, plus)
	if err != nil {
		return err
	}
	d.entries = append(d.entries, page...)
	if len(page) < DirPage {
		d.done = true
	}
	return nil
}

func (v *VFS) dotEntries(ctx context.Context, d *dirStream) error {
	a, err := v.client.GetAttr(ctx, d.ino)
	if err != nil {
		return err
	}
	up := a.Parent
	if d.ino == v.Root() || up == 0 {
		up = v.Root()
	}
	pa, err := v.client.GetAttr(ctx, up)
	if err != nil {
		pa = a
	}
	d.entries = append(d.entries,
		meta.Entry{Name: ".", Ino: d.ino, Type: meta.TypeDirectory, Attr: &a},
		meta.Entry{Name: "..", Ino: up, Type: meta.TypeDirectory, Attr: &pa})
	return nil
}

// ReleaseDir closes a directory handle.
func (v *VFS) ReleaseDir(fh uint64) {
	v.dropHandle(fh)
}
