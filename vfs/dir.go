package vfs

import (
	"context"
	"sync"

	"cairn/meta"
)

// dirPage is how many entries one Engine.Readdir call fetches.
const dirPage = 1000

// dirStream is an open directory: the entries read so far, "." and ".."
// first. Entry i has offset i+1; pages are fetched by name, so entries
// added or removed while a listing runs do not shift the others.
type dirStream struct {
	mu      sync.Mutex
	ino     meta.Ino
	entries []meta.Entry
	done    bool
}

// OpenDir opens directory ino for listing.
func (v *VFS) OpenDir(ctx context.Context, cred meta.Cred, ino meta.Ino) (uint64, error) {
	a, err := v.client.GetAttrFresh(ctx, ino)
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

// ReadDir returns up to max entries starting at offset (0 is the start;
// each entry's offset is its index plus one). With plus, each entry
// carries its attributes.
func (v *VFS) ReadDir(ctx context.Context, fh uint64, offset uint64, max int, plus bool) ([]meta.Entry, error) {
	h, err := v.handle(fh)
	if err != nil {
		return nil, err
	}
	d := h.dir
	if d == nil {
		return nil, meta.ErrNotDir
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if offset == 0 {
		// A new listing (or rewinddir): start afresh.
		d.entries, d.done = nil, false
		if err := v.dotEntries(ctx, d); err != nil {
			return nil, err
		}
	}
	for !d.done && uint64(len(d.entries)) < offset+uint64(max) {
		after := ""
		if n := len(d.entries); n > 2 {
			after = d.entries[n-1].Name
		}
		page, err := v.client.Readdir(ctx, d.ino, after, dirPage, plus)
		if err != nil {
			return nil, err
		}
		if len(page) == 0 {
			d.done = true
			break
		}
		d.entries = append(d.entries, page...)
	}
	if offset >= uint64(len(d.entries)) {
		return nil, nil
	}
	out := d.entries[offset:min(uint64(len(d.entries)), offset+uint64(max))]
	if plus {
		for i := range out {
			if out[i].Attr == nil {
				a, err := v.client.GetAttr(ctx, out[i].Ino)
				if err != nil {
					continue
				}
				out[i].Attr = &a
			}
			a := v.overlay(out[i].Ino, *out[i].Attr)
			out[i].Attr = &a
		}
	}
	return out, nil
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
