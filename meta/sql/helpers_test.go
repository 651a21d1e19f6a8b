package sql

import (
	"net"
	"os"
	"testing"

	"cairn/meta"
)

// reopen opens a second engine on e's database, as a second machine
// would.
func reopen(t *testing.T, e meta.Engine) meta.Engine {
	t.Helper()
	other, err := Open(e.(*Engine).source)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	return other
}

// closedPort is a loopback port nothing listens on.
func closedPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return port
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
