package bench

import (
	"os"
	"path/filepath"
	"testing"
)

func TestIdleCPUs(t *testing.T) {
	for _, c := range []struct {
		name, driver, governor, poll string
		desc                         string
		halts                        bool
	}{
		{"guest halting at once", "haltpoll", "haltpoll", "0", "haltpoll, guest_halt_poll_ns=0", true},
		{"guest polling first", "haltpoll", "haltpoll", "200000", "haltpoll, guest_halt_poll_ns=200000", false},
		{"haltpoll driver, another governor", "haltpoll", "menu", "0", "haltpoll, governor menu", false},
		{"haltpoll without its parameters", "haltpoll", "haltpoll", "", "haltpoll", false},
		{"bare metal", "intel_idle", "menu", "", "intel_idle, governor menu", false},
		{"no cpuidle", "", "", "", "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			sys := t.TempDir()
			write := func(p, v string) {
				if v == "" {
					return
				}
				p = filepath.Join(sys, p)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(v+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write("devices/system/cpu/cpuidle/current_driver", c.driver)
			write("devices/system/cpu/cpuidle/current_governor", c.governor)
			write("module/haltpoll/parameters/guest_halt_poll_ns", c.poll)
			desc, halts := IdleCPUs(sys)
			if desc != c.desc || halts != c.halts {
				t.Errorf("IdleCPUs = %q, %v; want %q, %v", desc, halts, c.desc, c.halts)
			}
		})
	}
}
