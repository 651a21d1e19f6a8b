package control

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"sync"
	"time"

	"cairn/meta"
	"cairn/vfs"
)

// Invalidator makes the kernel forget what it cached of names and inodes
// that a request changed behind its back, so that the change shows at
// once through the mount. Errors are ignored: the kernel may hold nothing.
type Invalidator interface {
	// Entry forgets the name parent/name, and what was cached below it.
	Entry(parent meta.Ino, name string)
	// Inode forgets ino's attributes and, for a directory, its listing.
	Inode(ino meta.Ino)
}

// Server answers the requests of commands for one mount. Requests run
// concurrently, each as its caller, until its connection closes.
type Server struct {
	v       *vfs.VFS
	shared  bool   // allow_other: every user may use the mount
	owner   uint32 // else only the mount's owner may
	l       *net.UnixListener
	address string

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	notify Invalidator
}

// maxRequest bounds the one line a command sends.
const maxRequest = 64 << 10

// progressEvery is how often a running request reports progress.
const progressEvery = 200 * time.Millisecond

// Listen creates the mount's socket in dir (see Dir); shared says whether
// every user may use the mount. Nothing is answered until Serve.
func Listen(dir string, v *vfs.VFS, shared bool) (*Server, error) {
	l, address, err := listen(dir, shared)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Server{v: v, shared: shared, owner: uint32(os.Geteuid()), l: l, address: address, ctx: ctx, cancel: cancel}, nil
}

// Address is the socket's path, which the mount publishes in .stats.
func (s *Server) Address() string { return s.address }

// Serve answers connections until Close, telling the kernel through
// notify what the requests change.
func (s *Server) Serve(notify Invalidator) {
	s.notify = notify
	for {
		conn, err := s.l.AcceptUnix()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				slog.Warn("control channel stops accepting", "address", s.address, "err", err)
			}
			return
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.serveConn(conn)
		}()
	}
}

// Close stops accepting, cancels the requests running and waits for them.
func (s *Server) Close() error {
	err := s.l.Close()
	s.cancel()
	s.wg.Wait()
	return err
}

func (s *Server) serveConn(conn *net.UnixConn) {
	defer conn.Close()
	out := &replies{enc: json.NewEncoder(conn)}
	cred, err := peerCred(conn)
	if err != nil {
		out.finish(nil, err)
		return
	}
	if !s.shared && cred.Uid != s.owner {
		out.finish(nil, fmt.Errorf("this mount serves uid %d only (it was mounted without allow_other)", s.owner))
		return
	}
	in := bufio.NewReaderSize(io.LimitReader(conn, maxRequest), 4096)
	line, err := in.ReadBytes('\n')
	if err != nil {
		out.finish(nil, fmt.Errorf("read the request: %w", err))
		return
	}
	var req Request
	if err := json.Unmarshal(line, &req); err != nil {
		out.finish(nil, fmt.Errorf("malformed request: %w", err))
		return
	}
	if req.Version != Version {
		out.finish(nil, fmt.Errorf("the command speaks control protocol %d, this mount %d: use the cairn of the mount's release", req.Version, Version))
		return
	}
	if err := req.check(); err != nil {
		out.finish(nil, err)
		return
	}
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	// The command closes the connection when it stops (Ctrl-C included):
	// that cancels its request.
	go func() {
		_, _ = io.Copy(io.Discard, conn)
		cancel()
	}()
	slog.Debug("control request", "op", req.Op, "path", req.Path, "uid", cred.Uid)
	c := &call{Server: s, ctx: ctx, cred: cred, req: req, out: out}
	result, err := c.run()
	c.stopWatching()
	if err != nil && ctx.Err() != nil && s.ctx.Err() == nil {
		slog.Info("control request cancelled by its command", "op", req.Op, "path", req.Path, "uid", cred.Uid)
	}
	out.finish(result, err)
}

// replies writes Reply lines; progress comes from another goroutine.
type replies struct {
	mu  sync.Mutex
	enc *json.Encoder
}

func (r *replies) send(reply Reply) {
	r.mu.Lock()
	defer r.mu.Unlock()
	_ = r.enc.Encode(reply) // a command gone: its context is cancelled
}

func (r *replies) finish(result any, err error) {
	reply := Reply{Done: true}
	if err != nil {
		reply.Error = err.Error()
	} else if result != nil {
		reply.Result, err = json.Marshal(result)
		if err != nil {
			reply.Error = fmt.Sprintf("encode the result: %v", err)
		}
	}
	r.send(reply)
}
