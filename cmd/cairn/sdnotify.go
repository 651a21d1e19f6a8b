package main

import (
	"fmt"
	"net"
	"os"
)

// notifySystemd sends state (READY=1, STOPPING=1) to the service manager
// that started this process with NOTIFY_SOCKET set, as a unit of
// Type=notify expects; without it there is no one to tell. The socket is
// a datagram socket, by path or, starting with '@', in the abstract
// namespace.
func notifySystemd(state string) error {
	addr := os.Getenv("NOTIFY_SOCKET")
	if addr == "" {
		return nil
	}
	if addr[0] == '@' {
		addr = "\x00" + addr[1:]
	}
	conn, err := net.DialUnix("unixgram", nil, &net.UnixAddr{Name: addr, Net: "unixgram"})
	if err != nil {
		return fmt.Errorf("tell the service manager %s: %w", state, err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte(state)); err != nil {
		return fmt.Errorf("tell the service manager %s: %w", state, err)
	}
	return nil
}
