package control

import (
	"strings"
	"testing"
)

// TestMigrateNeedsDestination: a migration request without its
// destination is refused in one line before anything is opened.
func TestMigrateNeedsDestination(t *testing.T) {
	s, err := Listen(t.TempDir(), nil, false)
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(nil)
	defer s.Close()
	for _, req := range []Request{
		{Op: OpMigrate, Path: "/"},
		{Op: OpMigrate, Path: "/", Migrate: &MigrateRequest{}},
	} {
		_, err := Call(t.Context(), s.Address(), req, nil, nil)
		if err == nil || !strings.Contains(err.Error(), "needs the URL of its destination") {
			t.Errorf("request %+v: %v", req, err)
		}
	}
}
