package tests

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"golang.org/x/sys/unix"

	"cairn/internal/testenv"
)

// scrape is one parsed read of a mount's /metrics.
type scrape map[string]*dto.MetricFamily

// metricsAddress is where the mount v serves its metrics, from the line
// that says it is mounted.
func metricsAddress(t *testing.T, v *volume) string {
	t.Helper()
	m := regexp.MustCompile(`msg=mounted .*metrics=(\S+)`).FindStringSubmatch(v.mnt.Output())
	if m == nil || m[1] == `""` {
		t.Fatalf("the mount did not say where it serves metrics; its output:\n%s", v.mnt.Output())
	}
	return m[1]
}

func scrapeMetrics(t *testing.T, addr string) scrape {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatalf("scrape %s: %v", addr, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("scrape %s: status %d: %.300s", addr, resp.StatusCode, body)
	}
	parser := expfmt.NewTextParser(model.LegacyValidation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse the scrape of %s: %v", addr, err)
	}
	return families
}

// value is the sum of the samples of family name whose labels include
// labels (a counter's or gauge's value, a histogram's count); 0 when
// there are none.
func (s scrape) value(name string, labels ...string) float64 {
	f := s[name]
	if f == nil {
		return 0
	}
	var sum float64
	for _, m := range f.GetMetric() {
		if !hasLabels(m, labels) {
			continue
		}
		switch {
		case m.Counter != nil:
			sum += m.Counter.GetValue()
		case m.Gauge != nil:
			sum += m.Gauge.GetValue()
		case m.Histogram != nil:
			sum += float64(m.Histogram.GetSampleCount())
		}
	}
	return sum
}

func hasLabels(m *dto.Metric, labels []string) bool {
	for i := 0; i+1 < len(labels); i += 2 {
		found := false
		for _, l := range m.GetLabel() {
			if l.GetName() == labels[i] && l.GetValue() == labels[i+1] {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// TestMetricsFollowWorkload mounts a volume with the default --metrics,
// scrapes /metrics before and after a workload through the mount, and
// checks that each family moved as the workload says.
func TestMetricsFollowWorkload(t *testing.T) {
	needMount(t)
	// Hold the default port, when free, to see the mount move on to the
	// next one.
	if ln, err := net.Listen("tcp", "127.0.0.1:9567"); err == nil {
		defer ln.Close()
	}
	v := newVolume(t)
	addr := metricsAddress(t, v)
	if addr == "127.0.0.1:9567" {
		t.Errorf("the mount serves metrics on the default port 127.0.0.1:9567, which was taken")
	}

	const files, size = 20, 100 << 10
	before := scrapeMetrics(t, addr)
	data := make([]byte, size)
	for i := range data {
		data[i] = byte(i * 7)
	}
	for i := 0; i < files; i++ {
		writeFile(t, v.path(fmt.Sprintf("f%d", i)), data)
	}
	if _, err := os.Stat(v.path("missing")); !os.IsNotExist(err) {
		t.Fatalf("stat of a missing file: %v", err)
	}
	for i := 0; i < files; i++ {
		readUncached(t, v.path(fmt.Sprintf("f%d", i)), size)
	}
	after := scrapeMetrics(t, addr)

	delta := func(name string, labels ...string) float64 {
		return after.value(name, labels...) - before.value(name, labels...)
	}
	total := float64(files * size)
	checks := []struct {
		what     string
		got, min float64
		exact    bool
	}{
		{"FUSE creates", delta("cairn_fuse_request_duration_seconds", "op", "create"), files, true},
		{"metadata mknods", delta("cairn_meta_request_duration_seconds", "op", "mknod"), files, true},
		{"bytes written through FUSE", delta("cairn_fuse_written_bytes_total"), total, false},
		{"bytes read through FUSE", delta("cairn_fuse_read_bytes_total"), total, false},
		{"FUSE lookups failed with ENOENT", delta("cairn_fuse_errors_total", "op", "lookup", "error", "ENOENT"), 1, false},
		{"metadata lookups failed with ENOENT", delta("cairn_meta_errors_total", "op", "lookup", "error", "ENOENT"), 1, false},
		{"object puts", delta("cairn_object_request_duration_seconds", "op", "put"), files, false},
		{"bytes put", delta("cairn_object_bytes_total", "op", "put"), total, false},
		{"block reads (cache hits and misses)", delta("cairn_cache_hits_total") + delta("cairn_cache_misses_total"), files, false},
		{"metadata round trips", delta("cairn_meta_round_trips_total"), files, false},
	}
	for _, c := range checks {
		if c.exact && c.got != c.min || c.got < c.min {
			want := "at least "
			if c.exact {
				want = ""
			}
			t.Errorf("%s moved by %v during the workload, want %s%v", c.what, c.got, want, c.min)
		}
	}
	if n := len(after["cairn_session_info"].GetMetric()); n != 1 {
		t.Errorf("cairn_session_info has %d series, want 1", n)
	}
	// The volume's usage is read at most once a second: wait for it.
	deadline := time.Now().Add(20 * time.Second)
	for {
		got := scrapeMetrics(t, addr).value("cairn_volume_used_inodes")
		if got == float64(files+1) { // the root too
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("cairn_volume_used_inodes is %v, want %d", got, files+1)
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	checkDashboard(t, after)
	checkReadmeListsMetrics(t, after)
}

// readUncached reads a file through the mount, not from the kernel's
// page cache, and checks its length.
func readUncached(t *testing.T, path string, size int) {
	t.Helper()
	f, err := os.Open(path)
	must(t, err, "open "+path)
	defer f.Close()
	must(t, unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED), "drop the cached pages of "+path)
	b, err := io.ReadAll(f)
	must(t, err, "read "+path)
	if len(b) != size {
		t.Fatalf("%s: read %d bytes, want %d", path, len(b), size)
	}
}

// checkDashboard checks that every metric the Grafana dashboard queries
// is in the scrape s.
func checkDashboard(t *testing.T, s scrape) {
	t.Helper()
	raw, err := os.ReadFile("../docs/grafana/cairn.json")
	must(t, err, "read the dashboard")
	var dashboard any
	must(t, json.Unmarshal(raw, &dashboard), "parse the dashboard")
	var exprs []string
	collectExprs(dashboard, &exprs)
	if len(exprs) == 0 {
		t.Fatal("the dashboard has no queries")
	}
	names := map[string]bool{}
	for _, e := range exprs {
		for _, n := range regexp.MustCompile(`cairn_[a-z_]+`).FindAllString(e, -1) {
			names[n] = true
		}
	}
	for n := range names {
		family := n
		if s[family] == nil {
			for _, suffix := range []string{"_bucket", "_count", "_sum"} {
				if f := strings.TrimSuffix(n, suffix); f != n && s[f] != nil && s[f].GetType() == dto.MetricType_HISTOGRAM {
					family = f
				}
			}
		}
		if s[family] == nil {
			t.Errorf("the dashboard queries %s, which the mount does not export", n)
		}
	}
}

func collectExprs(v any, out *[]string) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && (k == "expr" || k == "definition") {
				*out = append(*out, s)
			}
			collectExprs(x, out)
		}
	case []any:
		for _, x := range v {
			collectExprs(x, out)
		}
	}
}

// checkReadmeListsMetrics checks that the README names every cairn_
// metric family the mount exports.
func checkReadmeListsMetrics(t *testing.T, s scrape) {
	t.Helper()
	raw, err := os.ReadFile("../README.md")
	must(t, err, "read the README")
	var missing []string
	for name := range s {
		if strings.HasPrefix(name, "cairn_") && !strings.Contains(string(raw), "`"+name+"`") {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("the README's table of metrics lacks %s", strings.Join(missing, ", "))
	}
}

// TestMetricsBadAddress: an explicit --metrics address that is taken or
// malformed stops the mount with one line, before anything is mounted.
func TestMetricsBadAddress(t *testing.T) {
	needMount(t)
	v := formatVolume(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err, "listen")
	defer ln.Close()
	taken := ln.Addr().String()
	cases := []struct{ addr, want string }{
		{taken, "is taken"},
		{"nonsense", "not HOST:PORT"},
		{"127.0.0.1:99999", "port"},
	}
	for _, c := range cases {
		// In the background: a mount that wrongly goes ahead returns
		// (and is unmounted at the end) instead of serving forever.
		r := runCairn(t, "mount", v.meta, v.dir, "-d", "--metrics", c.addr, "--cache-dir", tempDir(t))
		wantUserError(t, r, c.want, c.addr)
		testenv.ForceUnmount(t, v.dir)
	}
	if st := status(t, v.meta); len(st.Sessions) != 0 {
		t.Errorf("a refused mount left %d sessions behind", len(st.Sessions))
	}
}

// TestMetricsOff: --metrics off serves nothing and says so.
func TestMetricsOff(t *testing.T) {
	needMount(t)
	v := formatVolume(t)
	v.mount(t, "--metrics", "off")
	if !strings.Contains(v.mnt.Output(), `metrics=""`) {
		t.Errorf("a mount with --metrics off reports an address; its output:\n%s", v.mnt.Output())
	}
}
