package control

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
)

// TestRefusals: a request of another protocol version, or of an unknown
// operation, is refused with one line, before anything is resolved; an
// address where nothing listens is ErrUnreachable.
func TestRefusals(t *testing.T) {
	s, err := Listen(t.TempDir(), nil, false)
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(nil)
	defer s.Close()
	ctx := context.Background()

	// Call always sends its own Version: speak the raw protocol for another.
	conn, err := net.Dial("unix", s.Address())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(conn, `{"version": 99, "op": "info", "path": "/"}`)
	var reply Reply
	if err := json.NewDecoder(conn).Decode(&reply); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	if !reply.Done || !strings.Contains(reply.Error, "speaks control protocol 99, this mount 1") {
		t.Errorf("a request of version 99: %+v", reply)
	}
	_, err = Call(ctx, s.Address(), Request{Op: "frobnicate", Path: "/"}, nil, nil)
	if err == nil || !strings.Contains(err.Error(), `does not know the request "frobnicate"`) {
		t.Errorf("an unknown operation: %v", err)
	}
	// Counts any user of a shared mount could send to exhaust it.
	for _, req := range []Request{
		{Op: OpWarmup, Path: "/", Threads: 1 << 40},
		{Op: OpFloor, Threads: 1 << 32, Ops: 1 << 32},
		{Op: OpSummary, Path: "/", Top: 1 << 40},
		{Op: OpRmr, Path: "/x", Threads: -1},
	} {
		if _, err := Call(ctx, s.Address(), req, nil, nil); err == nil || !strings.Contains(err.Error(), ": use ") {
			t.Errorf("request %+v: %v, want refused", req, err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = Call(ctx, s.Address(), Request{Op: OpInfo, Path: "/"}, nil, nil)
	if !errors.Is(err, ErrUnreachable) {
		t.Errorf("a closed channel: %v, want %v", err, ErrUnreachable)
	}
}
