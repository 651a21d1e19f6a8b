package metrics

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// DefaultAddress is where a mount serves its metrics unless told
// otherwise: loopback only, and the next free port when that one is
// taken (by another mount on the same machine).
const DefaultAddress = "127.0.0.1:9567"

// portsToTry is how many ports after a taken default port Listen tries.
const portsToTry = 100

// CheckAddress says whether addr is a HOST:PORT a server can listen on,
// before anything is opened.
func CheckAddress(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("metrics address %q is not HOST:PORT (e.g. %s, or off): %w", addr, DefaultAddress, err)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("metrics address %q: port %q is not a number from 0 to 65535", addr, port)
	}
	if host != "" && net.ParseIP(host) == nil {
		if _, err := net.LookupHost(host); err != nil {
			return fmt.Errorf("metrics address %q: unknown host %q", addr, host)
		}
	}
	return nil
}

// Listen opens addr for the metrics endpoint. When addr was not chosen by
// the user (explicit false) and its port is taken, the following
// portsToTry ports are tried, then any free port; an address the user
// gave is used as it is, or refused.
func Listen(addr string, explicit bool) (net.Listener, error) {
	if err := CheckAddress(addr); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err == nil {
		return ln, nil
	}
	inUse := errors.Is(err, syscall.EADDRINUSE)
	if explicit || !inUse {
		if inUse {
			return nil, fmt.Errorf("metrics address %s is taken (by another mount or program): give a free one with --metrics HOST:PORT, or --metrics off", addr)
		}
		return nil, fmt.Errorf("serve metrics on %s: %w (give another --metrics HOST:PORT, or --metrics off)", addr, err)
	}
	host, port, _ := net.SplitHostPort(addr)
	first, _ := strconv.Atoi(port)
	for p := first + 1; p <= first+portsToTry && p <= 65535; p++ {
		if ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(p))); err == nil {
			return ln, nil
		}
	}
	// A default must not stop a mount: any free port, logged like the
	// others.
	ln, err = net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return nil, fmt.Errorf("serve metrics on %s: %w (give a free address with --metrics HOST:PORT, or --metrics off)", host, err)
	}
	return ln, nil
}

// Server serves a registry's metrics over HTTP at /metrics.
type Server struct {
	srv  *http.Server
	addr string
}

// Serve serves reg on ln in the background until Close.
func Serve(ln net.Listener, reg *prometheus.Registry) *Server {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}))
	s := &Server{srv: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}, addr: ln.Addr().String()}
	go func() {
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			slog.Error("metrics endpoint stopped", "address", s.addr, "err", err)
		}
	}()
	return s
}

// Address is where the server listens, e.g. 127.0.0.1:9568.
func (s *Server) Address() string { return s.addr }

// Close stops serving.
func (s *Server) Close() error { return s.srv.Close() }
