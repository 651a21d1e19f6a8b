package kv

import "path/filepath"

// mappedTables drops from the process's memory the pages of a Badger
// directory's table files that Badger maps in. Badger v4 reads and
// writes its tables only through shared mappings (it has no option to
// read them with pread), and a page stays mapped, counted in the
// process's resident memory, until the table is closed: a load or a dump
// of 10 million inodes touches every table and held 600 MiB of them.
// The pages are clean or, for a table still being written, dirty in the
// page cache, which keeps them either way; a later read maps them in
// again from there (or from disk). So dropping them loses nothing, and
// only a load and a dump, which pass over each table once, do it.
type mappedTables struct {
	dir     string // absolute, as the kernel names the mapped files
	pending int    // bytes handled since the last release
}

// releaseEveryBytes is how much a load writes or a dump reads between two
// releases: about what their tables' mapped pages may grow by meanwhile.
const releaseEveryBytes = 4 << 20

func newMappedTables(dir string) *mappedTables {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return &mappedTables{dir: dir}
}

// handled counts n bytes written or read, and releases the mapped pages
// once releaseEveryBytes have passed.
func (m *mappedTables) handled(n int) {
	m.pending += n
	if m.pending >= releaseEveryBytes {
		m.pending = 0
		m.release()
	}
}
