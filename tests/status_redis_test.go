package tests

import (
	"encoding/json"
	"strings"
	"testing"

	"cairn/internal/testenv"
)

// TestStatusShowsRedisServer: 'cairn status' on a Redis volume names the
// server's version and its durability mode (the test server runs with
// appendonly yes).
func TestStatusShowsRedisServer(t *testing.T) {
	needBinary(t)
	url := testenv.Redis(t).URL(2)
	cairnOK(t, "format", url, "status-vol", "--bucket", tempDir(t)+"/bucket")
	var st struct {
		Engine struct {
			Name   string            `json:"name"`
			Server map[string]string `json:"server"`
		} `json:"engine"`
	}
	out := cairnOK(t, "status", url)
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("cairn status printed no JSON (%v):\n%s", err, out)
	}
	if st.Engine.Name != "redis" {
		t.Errorf("engine name %q, want redis", st.Engine.Name)
	}
	if !strings.HasPrefix(st.Engine.Server["server"], "redis ") || len(st.Engine.Server["server"]) <= len("redis ") {
		t.Errorf("server %q does not name the Redis version", st.Engine.Server["server"])
	}
	if !strings.Contains(st.Engine.Server["durability"], "AOF") {
		t.Errorf("durability %q does not say AOF is on", st.Engine.Server["durability"])
	}
}
