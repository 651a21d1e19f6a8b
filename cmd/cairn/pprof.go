package main

import (
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
)

// profileEnv, when set to a loopback address such as 127.0.0.1:6060, makes
// any cairn command serve Go's profiles (/debug/pprof/) there while it
// runs: for finding where a slow data path spends its time.
const profileEnv = "CAIRN_PPROF"

func init() {
	addr := os.Getenv(profileEnv)
	if addr == "" {
		return
	}
	host, _, err := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		slog.Warn("ignoring "+profileEnv+": not a loopback host:port", "addr", addr)
		return
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		slog.Warn("profile server", "addr", addr, "err", err)
		return
	}
	profileListener = ln
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	go func() {
		if err := http.Serve(ln, mux); err != nil && !errors.Is(err, net.ErrClosed) {
			slog.Warn("profile server", "addr", addr, "err", err)
		}
	}()
}

// profileListener is the profile server's socket; nil when none.
var profileListener net.Listener

// stopProfiling frees the profile server's address for a process this one
// starts: the background mount, which is the process worth profiling.
func stopProfiling() {
	if profileListener != nil {
		profileListener.Close()
	}
}
