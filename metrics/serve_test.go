package metrics

import (
	"net"
	"strings"
	"testing"
)

func TestCheckAddress(t *testing.T) {
	cases := []struct {
		addr string
		ok   bool
	}{
		{"127.0.0.1:9567", true},
		{":9567", true},
		{"[::1]:0", true},
		{"localhost:9567", true},
		{"127.0.0.1", false},
		{"nonsense", false},
		{"127.0.0.1:http-ish", false},
		{"127.0.0.1:70000", false},
		{"no.such.host.invalid:9567", false},
	}
	for _, c := range cases {
		err := CheckAddress(c.addr)
		if (err == nil) != c.ok {
			t.Errorf("CheckAddress(%q) = %v, want ok=%v", c.addr, err, c.ok)
		}
	}
}

// TestListenTakenPort: the default address moves on to a free port; an
// explicit one is refused in one line.
func TestListenTakenPort(t *testing.T) {
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	addr := held.Addr().String()

	ln, err := Listen(addr, false)
	if err != nil {
		t.Fatalf("Listen(%s) as the default: %v", addr, err)
	}
	if ln.Addr().String() == addr {
		t.Errorf("Listen(%s) as the default listens on the taken address", addr)
	}
	ln.Close()

	if ln, err := Listen(addr, true); err == nil {
		ln.Close()
		t.Errorf("Listen(%s) given explicitly succeeded on a taken address", addr)
	} else if !strings.Contains(err.Error(), "is taken") || strings.Contains(err.Error(), "\n") {
		t.Errorf("Listen(%s) given explicitly: %q, want one line that says it is taken", addr, err)
	}
}
