package fsbench

import (
	"bufio"
	"os"
	"strings"
	"syscall"
)

// Mount is the file system a path lives on, from /proc/self/mountinfo.
type Mount struct {
	Point  string `json:"point"`
	FSType string `json:"fstype"`
	Source string `json:"source"`
	// Cairn is true for a cairn FUSE mount.
	Cairn bool `json:"cairn"`
}

// FindMount returns the mount holding the absolute path abs, or nil when
// mountinfo cannot be read.
func FindMount(abs string) *Mount {
	var best *Mount
	for _, m := range mounts() {
		if within(abs, m.Point) && (best == nil || len(m.Point) >= len(best.Point)) {
			best = &m
		}
	}
	return best
}

// CairnMounts lists the cairn FUSE mounts this process sees, or none when
// mountinfo cannot be read.
func CairnMounts() []Mount {
	var cairn []Mount
	for _, m := range mounts() {
		if m.Cairn {
			cairn = append(cairn, m)
		}
	}
	return cairn
}

// mounts reads /proc/self/mountinfo, in its order; none when it cannot.
func mounts() []Mount {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil
	}
	defer f.Close()
	var all []Mount
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if m, ok := parseMountinfo(sc.Text()); ok {
			all = append(all, m)
		}
	}
	return all
}

// parseMountinfo reads one line of mountinfo: field 5 is the mount point;
// after the " - " separator come the type and the source.
func parseMountinfo(line string) (Mount, bool) {
	pre, post, ok := strings.Cut(line, " - ")
	if !ok {
		return Mount{}, false
	}
	a, b := strings.Fields(pre), strings.Fields(post)
	if len(a) < 5 || len(b) < 2 {
		return Mount{}, false
	}
	m := Mount{Point: unescape(a[4]), FSType: b[0], Source: unescape(b[1])}
	m.Cairn = m.FSType == "fuse.cairn" || strings.HasPrefix(m.FSType, "fuse") && strings.HasPrefix(m.Source, "cairn")
	return m, true
}

// unescape undoes mountinfo's octal escapes (\040 for a space).
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			v := (int(s[i+1]-'0')<<6 | int(s[i+2]-'0')<<3 | int(s[i+3]-'0'))
			b.WriteByte(byte(v))
			i += 3
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func within(path, dir string) bool {
	if dir == "/" {
		return true
	}
	return path == dir || strings.HasPrefix(path, dir+"/")
}

func syncAll() { syscall.Sync() }
