package kv

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// release drops the pages of the directory's mapped table files
// (madvise MADV_DONTNEED on each of their mappings, which for a shared
// file mapping only unmaps the pages; the page cache keeps them). It is
// best effort: what it cannot read or advise stays mapped.
func (m *mappedTables) release() {
	maps, err := os.Open("/proc/self/maps")
	if err != nil {
		return
	}
	defer maps.Close()
	lines := bufio.NewScanner(maps)
	for lines.Scan() {
		start, end, ok := m.tableMapping(lines.Text())
		if ok {
			unix.Syscall(unix.SYS_MADVISE, start, end-start, unix.MADV_DONTNEED)
		}
	}
}

// tableMapping parses one line of /proc/self/maps ("start-end perms
// offset dev inode path") and says whether it maps a table file (.sst)
// of the directory.
func (m *mappedTables) tableMapping(line string) (start, end uintptr, ok bool) {
	fields := strings.Fields(line)
	if len(fields) != 6 || !strings.HasSuffix(fields[5], ".sst") || filepath.Dir(fields[5]) != m.dir {
		return 0, 0, false
	}
	from, to, found := strings.Cut(fields[0], "-")
	if !found {
		return 0, 0, false
	}
	s, err1 := strconv.ParseUint(from, 16, 64)
	e, err2 := strconv.ParseUint(to, 16, 64)
	if err1 != nil || err2 != nil || e <= s {
		return 0, 0, false
	}
	return uintptr(s), uintptr(e), true
}
