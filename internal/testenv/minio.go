package testenv

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// MinIOVersion is the MinIO server the tests build and run.
const MinIOVersion = "github.com/minio/minio@v0.0.0-20260212201848-7aac2a2c5b7c"

// MinIOServer is a MinIO server the test started on 127.0.0.1 with a data
// directory of its own. It is killed when the test ends.
type MinIOServer struct {
	Port      int
	Dir       string
	AccessKey string
	SecretKey string
	bin       string
	cmd       *exec.Cmd
	logBuf    bytes.Buffer
	t         testing.TB
}

// MinIOCacheDir is where the built server is kept between runs.
func MinIOCacheDir() string {
	if d := os.Getenv("CAIRN_BIN_CACHE"); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil {
		home = os.TempDir()
	}
	return filepath.Join(home, ".cache", "cairn", "bin")
}

// MinIOBinary returns a minio server binary: one on PATH, the cached build,
// or a new build (go install, minutes on a small machine; one build at a
// time across test processes, under a lock file). A failed build skips the
// test (fails it in CI).
func MinIOBinary(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath("minio"); err == nil {
		return p
	}
	dir := MinIOCacheDir()
	bin := filepath.Join(dir, "minio")
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		Missing(t, "minio is not built and %s cannot be made: %v", dir, err)
	}
	lock, err := os.OpenFile(filepath.Join(dir, ".minio.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		Missing(t, "minio: lock %s: %v", dir, err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		Missing(t, "minio: lock %s: %v", dir, err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	if _, err := os.Stat(bin); err == nil {
		return bin // another process built it while we waited
	}
	t.Logf("building %s into %s (several minutes, once)", MinIOVersion, dir)
	cmd := exec.Command("go", "install", MinIOVersion)
	cmd.Dir = os.TempDir() // outside any module
	cmd.Env = append(os.Environ(), "GOBIN="+dir, "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		Missing(t, "build minio (go install %s): %v\n%s", MinIOVersion, err, out)
	}
	return bin
}

// MinIO starts a MinIO server with fresh credentials.
func MinIO(t testing.TB) *MinIOServer {
	t.Helper()
	s := &MinIOServer{
		Port: FreePort(t), Dir: t.TempDir(), bin: MinIOBinary(t), t: t,
		AccessKey: "cairn-test", SecretKey: "cairn-test-secret",
	}
	s.Start()
	t.Cleanup(s.Stop)
	return s
}

// Endpoint is host:port.
func (s *MinIOServer) Endpoint() string { return fmt.Sprintf("127.0.0.1:%d", s.Port) }

// URL is the path-style bucket URL.
func (s *MinIOServer) URL(bucket string) string {
	return fmt.Sprintf("http://%s/%s", s.Endpoint(), bucket)
}

// Start (re)starts the server on the same port and directory and waits
// until it is ready.
func (s *MinIOServer) Start() {
	s.t.Helper()
	s.logBuf.Reset()
	s.cmd = exec.Command(s.bin, "server", "--quiet", "--address", s.Endpoint(),
		"--console-address", fmt.Sprintf("127.0.0.1:%d", FreePort(s.t)), s.Dir)
	s.cmd.Env = append(os.Environ(),
		"MINIO_ROOT_USER="+s.AccessKey, "MINIO_ROOT_PASSWORD="+s.SecretKey,
		"MINIO_BROWSER=off", "MINIO_UPDATE=off", "MINIO_DOMAIN=localhost")
	s.cmd.Stdout = &s.logBuf
	s.cmd.Stderr = &s.logBuf
	// Should the test binary die (a panic, a timeout), the server goes too.
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := s.cmd.Start(); err != nil {
		s.t.Fatalf("start minio: %v", err)
	}
	deadline := time.Now().Add(60 * time.Second)
	client := &http.Client{Timeout: time.Second}
	for {
		// Ready means the health check passes and an S3 request (an
		// anonymous bucket listing, refused) is no longer answered with
		// 503 "server not initialized".
		if s.answers(client, "/minio/health/ready", http.StatusOK) && s.answers(client, "/", http.StatusForbidden) {
			return
		}
		if time.Now().After(deadline) {
			s.Stop()
			s.t.Fatalf("minio did not come up on %s within 60s; its output:\n%s", s.Endpoint(), s.logBuf.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (s *MinIOServer) answers(client *http.Client, path string, want int) bool {
	resp, err := client.Get("http://" + s.Endpoint() + path)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == want
}

// Stop kills the server (as a crash would) and waits for it to exit.
func (s *MinIOServer) Stop() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	s.cmd.Process.Kill()
	s.cmd.Wait()
	s.cmd = nil
}
