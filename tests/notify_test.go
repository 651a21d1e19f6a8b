package tests

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"cairn/internal/testenv"
)

// TestSystemdReadiness listens on a datagram socket as systemd does for a
// unit of Type=notify, and mounts with NOTIFY_SOCKET pointing at it: the
// mount says READY=1 once it serves, and STOPPING=1 when told to stop.
func TestSystemdReadiness(t *testing.T) {
	v := formatVolume(t)
	needMount(t)
	sock := filepath.Join(tempDir(t), "notify")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	receive := func() string {
		t.Helper()
		// A guard against a hang, not a timing check.
		if err := conn.SetReadDeadline(time.Now().Add(60 * time.Second)); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 256)
		n, _, err := conn.ReadFrom(buf)
		if err != nil {
			t.Fatalf("no notification on the socket: %v", err)
		}
		return string(buf[:n])
	}
	args := append([]string{"mount", v.meta, v.dir, "--cache-dir", filepath.Join(tempDir(t), "cache")}, v.mountArgs...)
	cmd := exec.Command(cairnBin, args...)
	cmd.Env = append(os.Environ(), "NOTIFY_SOCKET="+sock)
	m := testenv.StartMount(t, cmd, v.dir)
	if got := receive(); got != "READY=1" {
		t.Fatalf("the first notification is %q, want READY=1", got)
	}
	if err := os.WriteFile(v.path("ready"), []byte("x"), 0o644); err != nil {
		t.Fatalf("the mount said it was ready but does not serve: %v", err)
	}
	if err := m.Unmount(); err != nil {
		t.Fatalf("unmount: %v\n%s", err, m.Output())
	}
	if got := receive(); got != "STOPPING=1" {
		t.Errorf("the notification on stop is %q, want STOPPING=1", got)
	}
}
