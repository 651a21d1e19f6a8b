package testenv

import (
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Cutter is a TCP proxy on loopback between a client and a server that
// breaks a connection at the worst moment for the client: once armed, the
// request it picks (see Arm) reaches the server or not, no answer comes
// back, and the connection is closed under the client. A request must
// arrive in one read to be recognised, which small ones do.
type Cutter struct {
	ln     net.Listener
	target string
	cuts   atomic.Int64
	wg     sync.WaitGroup

	mu      sync.Mutex
	armed   bool
	deliver bool
	skip    int
	match   func(req []byte) bool
}

// NewCutter listens on loopback for connections to target; the test's
// cleanup closes it.
func NewCutter(t testing.TB, target string) *Cutter {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &Cutter{ln: ln, target: target}
	t.Cleanup(func() { ln.Close(); c.wg.Wait() })
	c.wg.Add(1)
	go c.accept()
	return c
}

// Addr is the address clients dial instead of the server's.
func (c *Cutter) Addr() string { return c.ln.Addr().String() }

// Cuts is how many connections the cutter has broken.
func (c *Cutter) Cuts() int64 { return c.cuts.Load() }

// Arm makes the cutter break the connection of the next request match
// accepts (any request when match is nil), after letting skip such
// requests pass. deliver says whether that request reaches the server
// first (which then has 300 ms to run it) or is dropped.
func (c *Cutter) Arm(deliver bool, skip int, match func(req []byte) bool) {
	c.mu.Lock()
	c.armed, c.deliver, c.skip, c.match = true, deliver, skip, match
	c.mu.Unlock()
}

// Disarm lets every request pass again.
func (c *Cutter) Disarm() {
	c.mu.Lock()
	c.armed = false
	c.mu.Unlock()
}

// takes reports whether req is the request to cut, and whether it is
// delivered first.
func (c *Cutter) takes(req []byte) (cut, deliver bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.armed || (c.match != nil && !c.match(req)) {
		return false, false
	}
	if c.skip > 0 {
		c.skip--
		return false, false
	}
	c.armed = false
	return true, c.deliver
}

func (c *Cutter) accept() {
	defer c.wg.Done()
	for {
		client, err := c.ln.Accept()
		if err != nil {
			return
		}
		server, err := net.Dial("tcp", c.target)
		if err != nil {
			client.Close()
			continue
		}
		c.wg.Add(2)
		go c.relay(client, server)
	}
}

// relay carries one connection both ways until either side closes it or
// a request is cut.
func (c *Cutter) relay(client, server net.Conn) {
	var once sync.Once
	closeBoth := func() { once.Do(func() { client.Close(); server.Close() }) }
	var cutting atomic.Bool // set before the cut request goes: no answer passes
	go func() {
		defer c.wg.Done()
		defer closeBoth()
		buf := make([]byte, 64<<10)
		for {
			n, err := server.Read(buf)
			if err != nil || cutting.Load() {
				return
			}
			if _, err := client.Write(buf[:n]); err != nil {
				return
			}
		}
	}()
	defer c.wg.Done()
	defer closeBoth()
	buf := make([]byte, 64<<10)
	for {
		n, err := client.Read(buf)
		if err != nil {
			return
		}
		cut, deliver := c.takes(buf[:n])
		if cut {
			cutting.Store(true)
			c.cuts.Add(1)
			if deliver {
				server.Write(buf[:n])
				time.Sleep(300 * time.Millisecond) // the server runs it
			}
			return
		}
		if _, err := server.Write(buf[:n]); err != nil {
			return
		}
	}
}
