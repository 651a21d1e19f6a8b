package metatest

import (
	"fmt"

	"cairn/meta"
)

// testBatchRemoveMany removes BatchRemoveLimit names of many shapes in
// one call — empty files, files of one slice, files of several chunks,
// symlinks, both links of inodes, and files too big to delete at once —
// which a kv engine must split into transactions within etcd's limits,
// counting what each name reads and writes: everything goes, and usage
// returns to what it was before the files were made.
func testBatchRemoveMany(x *env) {
	remover := x.batchRemover()
	base := x.usage()
	d := x.mkdir(meta.RootIno, "d")
	var names []string
	var gone []meta.Ino
	var slices []meta.Slice
	for i := 0; len(names) < meta.BatchRemoveLimit; i++ {
		name := fmt.Sprintf("n%03d", i)
		switch i % 6 {
		case 0:
			gone = append(gone, x.create(d, name))
		case 1:
			f := x.create(d, name)
			slices = append(slices, x.write(f, 0, 0, 5000))
			gone = append(gone, f)
		case 2:
			f := x.create(d, name)
			for c := range uint32(4) {
				slices = append(slices, x.write(f, c, 0, 10))
			}
			gone = append(gone, f)
		case 3:
			gone = append(gone, x.symlink(d, name, "target"))
		case 4:
			f := x.create(d, name)
			slices = append(slices, x.write(f, 0, 0, 10))
			_, err := x.e.Link(x.ctx, meta.RootCred, f, d, name+"-link")
			x.must(err, "Link")
			names = append(names, name+"-link")
			gone = append(gone, f)
		case 5:
			f := x.create(d, name)
			if i%60 == 5 {
				for c := range uint32(20) {
					slices = append(slices, x.write(f, c, 0, 10))
				}
			}
			gone = append(gone, f)
		}
		names = append(names, name)
	}
	r, err := remover.RemoveEntries(x.ctx, meta.RootCred, d, names, x.sid)
	if !x.want(nil, err, "RemoveEntries of %d names", len(names)) {
		return
	}
	for _, ino := range r.Orphans {
		x.orphans[ino] = true
		x.release(ino)
	}
	if r.Removed != len(names) {
		x.t.Errorf("RemoveEntries removed %d entries, want %d", r.Removed, len(names))
	}
	if left := x.names(d); len(left) != 0 {
		x.t.Errorf("directory after RemoveEntries lists %d names, want none: %q", len(left), left)
	}
	for _, ino := range gone {
		if _, err := x.e.GetAttr(x.ctx, ino); !x.want(meta.ErrNotFound, err, "GetAttr of removed inode %d", ino) {
			break
		}
	}
	x.must(x.e.Rmdir(x.ctx, meta.RootCred, meta.RootIno, "d"), "Rmdir of the emptied directory")
	if u := x.usage(); u != base {
		x.t.Errorf("Usage after RemoveEntries = %+v, want %+v as before the files were made", u, base)
	}
	dead := x.deadIDs()
	for _, s := range slices {
		if _, ok := dead[s.ID]; !ok {
			x.t.Errorf("slice %d of a removed file is not in the dead-slice queue", s.ID)
			break
		}
	}
}
