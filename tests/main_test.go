package tests

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The binaries every test uses, built once by TestMain into a directory
// that uid 65534 may read, so that child processes can run as that user.
var (
	cairnBin  string // the cairn command
	helperBin string // a copy of this test binary, run as a child helper
	shareDir  string // a world-readable directory for mount points
	buildErr  error  // why the binaries could not be built
)

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		os.Exit(helperMain(os.Args[1:]))
	}
	code := func() int {
		dir, err := os.MkdirTemp("", "cairn-tests-")
		if err != nil {
			fmt.Fprintln(os.Stderr, "tests:", err)
			return 1
		}
		defer os.RemoveAll(dir)
		if err := os.Chmod(dir, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, "tests:", err)
			return 1
		}
		shareDir = dir
		buildErr = buildBinaries(dir)
		return m.Run()
	}()
	os.Exit(code)
}

// buildBinaries builds cmd/cairn into dir and copies this test binary next
// to it.
func buildBinaries(dir string) error {
	cairnBin = filepath.Join(dir, "cairn")
	cmd := exec.Command("go", "build", "-o", cairnBin, "cairn/cmd/cairn")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build cairn/cmd/cairn: %v\n%s", err, out)
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find the test binary: %w", err)
	}
	helperBin = filepath.Join(dir, "helper.test")
	return copyFile(self, helperBin, 0o755)
}

func copyFile(src, dst string, mode os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// needBinary fails the test when the cairn binary could not be built.
func needBinary(t testing.TB) {
	t.Helper()
	if buildErr != nil {
		t.Fatalf("cannot build the binaries under test: %v", buildErr)
	}
}
