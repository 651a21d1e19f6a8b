package bench

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"time"
)

// Env describes where a measurement was taken.
type Env struct {
	Date      time.Time `json:"date"`
	Host      string    `json:"host"`
	CPU       string    `json:"cpu"`
	CPUs      int       `json:"cpus"`
	MemoryGiB float64   `json:"memory_gib"`
	Kernel    string    `json:"kernel"`
	Go        string    `json:"go"`
	Cairn     string    `json:"cairn"`
	// LoadStart and LoadEnd are the 1, 5 and 15 minute load averages when
	// the measurement began and ended: on a shared machine they say how
	// much else was running.
	LoadStart string `json:"load_start"`
	LoadEnd   string `json:"load_end,omitempty"`
	// CPUIdle is how an idle CPU waits (see IdleCPUs), when known.
	CPUIdle string `json:"cpu_idle,omitempty"`
}

// LoadAverage returns the 1, 5 and 15 minute load averages, or "".
func LoadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// Machine describes this machine now.
func Machine() Env {
	e := Env{Date: time.Now().UTC(), CPUs: runtime.NumCPU(), Go: runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH}
	e.Host, _ = os.Hostname()
	e.LoadStart = LoadAverage()
	e.CPUIdle, _ = IdleCPUs("/sys")
	e.CPU = procField("/proc/cpuinfo", "model name")
	if kb := procField("/proc/meminfo", "MemTotal"); kb != "" {
		var n float64
		for _, c := range strings.Fields(kb)[0] {
			n = n*10 + float64(c-'0')
		}
		e.MemoryGiB = float64(int(n/(1<<20)*10+0.5)) / 10
	}
	var u syscall.Utsname
	if syscall.Uname(&u) == nil {
		e.Kernel = utsString(u.Sysname[:]) + " " + utsString(u.Release[:])
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				e.Cairn = "cairn " + s.Value[:12]
			}
		}
	}
	return e
}

func utsString(b []int8) string {
	var sb strings.Builder
	for _, c := range b {
		if c == 0 {
			break
		}
		sb.WriteByte(byte(c))
	}
	return sb.String()
}

// IdleCPUs says how this machine's idle CPUs wait, read from sysfs at sys
// ("/sys"): the cpuidle driver and governor, and for a virtual machine's
// haltpoll governor how long a CPU polls before it halts. halts is true
// when they halt at once (haltpoll with guest_halt_poll_ns 0): waking a
// halted virtual CPU costs the hypervisor tens of microseconds, and an
// operation through a FUSE mount, which puts the caller and the mount to
// sleep while the database works, pays several such wake-ups.
func IdleCPUs(sys string) (desc string, halts bool) {
	read := func(p string) string {
		b, err := os.ReadFile(filepath.Join(sys, p))
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(b))
	}
	const idle = "devices/system/cpu/cpuidle/"
	driver := read(idle + "current_driver")
	governor := read(idle + "current_governor")
	if governor == "" {
		governor = read(idle + "current_governor_ro")
	}
	desc = driver
	if governor != "" && governor != driver {
		desc += ", governor " + governor
	}
	if governor != "haltpoll" {
		return desc, false
	}
	poll := read("module/haltpoll/parameters/guest_halt_poll_ns")
	if poll == "" {
		return desc, false
	}
	return desc + ", guest_halt_poll_ns=" + poll, poll == "0"
}

// procField returns the value of the first "key: value" line of a /proc
// file, or "".
func procField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// EngineVersion says which version of an engine's software is in use, as far
// as it is cheap to learn: the linked library for embedded engines, the
// locally installed server binary for client/server ones (which is the
// server measured when it runs on this machine). "" when unknown.
func EngineVersion(scheme string) string {
	switch scheme {
	case "mem":
		return "in-process (no durability)"
	case "sqlite3":
		return module("github.com/mattn/go-sqlite3", "embedded SQLite (mattn/go-sqlite3)")
	case "badger":
		return module("github.com/dgraph-io/badger/v4", "embedded Badger v4")
	case "redis", "rediss", "valkey", "keydb":
		return binaryVersion("redis-server", "--version")
	case "postgres", "postgresql":
		return binaryVersion("postgres", "--version", "/usr/lib/postgresql/*/bin")
	case "mysql", "mariadb":
		if v := binaryVersion("mariadbd", "--version", "/usr/sbin"); v != "" {
			return v
		}
		return binaryVersion("mysqld", "--version", "/usr/sbin")
	case "etcd":
		return binaryVersion("etcd", "--version")
	case "tikv":
		return binaryVersion("tikv-server", "--version")
	}
	return ""
}

// module names the linked version of a Go module, or says what is linked
// when the binary does not record versions (test binaries).
func module(path, what string) string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, d := range info.Deps {
			if d.Path == path {
				return "linked " + d.Path + " " + d.Version
			}
		}
	}
	return what
}

// binaryVersion runs the first name found on PATH or in dirs with arg and
// returns the first line it prints, marked as the local binary's.
func binaryVersion(name, arg string, dirs ...string) string {
	bin, err := exec.LookPath(name)
	if err != nil {
		for _, d := range dirs {
			if m, _ := filepath.Glob(filepath.Join(d, name)); len(m) > 0 {
				bin, err = m[len(m)-1], nil
			}
		}
	}
	if err != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, arg).Output()
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return line + " (local binary)"
}
