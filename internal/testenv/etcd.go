package testenv

import (
	"crypto/tls"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// EtcdCluster is a real etcd cluster of three members the test started on
// loopback ports, each with a data directory of its own (fsync on, as in
// production). Members can be killed and restarted to test faults; the
// whole cluster is killed when the test ends.
type EtcdCluster struct {
	Members []*EtcdMember
	TLS     *EtcdTLS
	bin     string
	t       testing.TB
}

// EtcdTLS makes the members serve clients over TLS with this certificate,
// and require client certificates signed by CA.
type EtcdTLS struct {
	CertFile, KeyFile, CAFile string
	// Client is what the health check presents.
	ClientCert tls.Certificate
}

// EtcdMember is one etcd process of a cluster.
type EtcdMember struct {
	Name       string
	ClientPort int
	PeerPort   int
	Dir        string
	args       []string
	cmd        *exec.Cmd
}

// Etcd starts a three-member cluster and waits until it has a leader. It
// skips (fails in CI) without the etcd binary (Debian's etcd-server). A
// port taken between choosing it and etcd binding it (other tests run
// alongside) makes it start again on other ports.
func Etcd(t testing.TB) *EtcdCluster { return EtcdWithTLS(t, nil) }

// EtcdWithTLS is Etcd with clients served over TLS when tlsc is not nil.
func EtcdWithTLS(t testing.TB, tlsc *EtcdTLS) *EtcdCluster {
	t.Helper()
	bin := Binary(t, []string{"etcd"}, "/usr/bin", "/usr/local/bin", "/usr/lib/etcd")
	for attempt := 1; ; attempt++ {
		c := &EtcdCluster{bin: bin, t: t, TLS: tlsc}
		err := c.start(t.TempDir())
		if err == nil {
			t.Cleanup(c.killAll)
			return c
		}
		c.killAll()
		if attempt == 3 || !strings.Contains(err.Error(), "address already in use") {
			t.Fatal(err)
		}
	}
}

func (c *EtcdCluster) killAll() {
	for i := range c.Members {
		c.Kill(i)
	}
}

func (c *EtcdCluster) start(root string) error {
	var initial []string
	for i := 0; i < 3; i++ {
		m := &EtcdMember{Name: fmt.Sprintf("m%d", i), ClientPort: FreePort(c.t), PeerPort: FreePort(c.t),
			Dir: filepath.Join(root, fmt.Sprintf("m%d", i))}
		c.Members = append(c.Members, m)
		initial = append(initial, fmt.Sprintf("%s=http://127.0.0.1:%d", m.Name, m.PeerPort))
	}
	for _, m := range c.Members {
		client := fmt.Sprintf("%s://127.0.0.1:%d", c.scheme(), m.ClientPort)
		peer := fmt.Sprintf("http://127.0.0.1:%d", m.PeerPort)
		m.args = []string{
			"--name", m.Name, "--data-dir", m.Dir,
			"--listen-client-urls", client, "--advertise-client-urls", client,
			"--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
			"--initial-cluster", strings.Join(initial, ","),
			"--initial-cluster-state", "new", "--initial-cluster-token", "cairn-test",
			"--heartbeat-interval", "50", "--election-timeout", "500",
			"--logger", "zap", "--log-level", "warn",
			"--log-outputs", filepath.Join(root, m.Name+".log"),
		}
		if c.TLS != nil {
			m.args = append(m.args, "--cert-file", c.TLS.CertFile, "--key-file", c.TLS.KeyFile,
				"--trusted-ca-file", c.TLS.CAFile, "--client-cert-auth")
		}
	}
	for i := range c.Members {
		if err := c.startProcess(i); err != nil {
			return err
		}
	}
	for i := range c.Members {
		if err := c.waitHealthy(i, 30*time.Second); err != nil {
			return err
		}
	}
	return nil
}

// Endpoints are the members' client addresses, host:port.
func (c *EtcdCluster) Endpoints() []string {
	var eps []string
	for _, m := range c.Members {
		eps = append(eps, fmt.Sprintf("127.0.0.1:%d", m.ClientPort))
	}
	return eps
}

// URL is the etcd:// URL of a volume stored under prefix.
func (c *EtcdCluster) URL(prefix string) string {
	return "etcd://" + strings.Join(c.Endpoints(), ",") + "/" + prefix
}

func (c *EtcdCluster) startProcess(i int) error {
	m := c.Members[i]
	m.cmd = exec.Command(c.bin, m.args...)
	// Should the test binary die (a panic, a timeout), the member goes too.
	m.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := m.cmd.Start(); err != nil {
		return fmt.Errorf("start etcd member %s: %v", m.Name, err)
	}
	return nil
}

// waitHealthy waits until member i reports itself healthy (which needs a
// quorum of the cluster).
func (c *EtcdCluster) waitHealthy(i int, within time.Duration) error {
	m := c.Members[i]
	client := http.Client{Timeout: time.Second}
	if c.TLS != nil {
		client.Transport = &http.Transport{TLSClientConfig: &tls.Config{
			InsecureSkipVerify: true, // only asks whether the member is up
			Certificates:       []tls.Certificate{c.TLS.ClientCert},
		}}
	}
	deadline := time.Now().Add(within)
	logPath := filepath.Join(filepath.Dir(m.Dir), m.Name+".log")
	for {
		resp, err := client.Get(fmt.Sprintf("%s://127.0.0.1:%d/health", c.scheme(), m.ClientPort))
		if err == nil {
			var buf [256]byte
			n, _ := resp.Body.Read(buf[:])
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK && strings.Contains(string(buf[:n]), `"true"`) {
				return nil
			}
		}
		log, _ := os.ReadFile(logPath)
		if time.Now().After(deadline) || strings.Contains(string(log), "address already in use") {
			return fmt.Errorf("etcd member %s not healthy on port %d; its log:\n%s", m.Name, m.ClientPort, tail(log, 4000))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (c *EtcdCluster) scheme() string {
	if c.TLS != nil {
		return "https"
	}
	return "http"
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// Kill kills member i (SIGKILL: what it fsync'd survives) and waits for it
// to exit. Killing a dead member does nothing.
func (c *EtcdCluster) Kill(i int) {
	m := c.Members[i]
	if m.cmd == nil || m.cmd.Process == nil {
		return
	}
	m.cmd.Process.Kill()
	m.cmd.Wait()
	m.cmd = nil
}

// Freeze stops every member (SIGSTOP) as a disk that stalls on fsync
// holds them all: nothing answers, nothing is lost, no election follows
// when they go on together (Thaw).
func (c *EtcdCluster) Freeze() { c.signalAll(syscall.SIGSTOP) }

// Thaw lets the members Freeze stopped go on (SIGCONT).
func (c *EtcdCluster) Thaw() { c.signalAll(syscall.SIGCONT) }

func (c *EtcdCluster) signalAll(sig syscall.Signal) {
	c.t.Helper()
	for _, m := range c.Members {
		if m.cmd == nil || m.cmd.Process == nil {
			continue
		}
		if err := m.cmd.Process.Signal(sig); err != nil {
			c.t.Fatalf("signal etcd member %s: %v", m.Name, err)
		}
	}
}

// Restart starts killed members again on their data directories and
// waits until each has rejoined the cluster. Members that make up a
// quorum only together (two of three killed) are started together.
func (c *EtcdCluster) Restart(members ...int) {
	c.t.Helper()
	for _, i := range members {
		if err := c.startProcess(i); err != nil {
			c.t.Fatal(err)
		}
	}
	for _, i := range members {
		if err := c.waitHealthy(i, 30*time.Second); err != nil {
			c.t.Fatal(err)
		}
	}
}
