package tests

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// helperEnv, when set, turns the test binary into a child helper: a second
// process (another lock owner, another user) that runs one operation and
// prints "ok" or the errno's name.
const helperEnv = "CAIRN_TEST_HELPER"

// nobody is the unprivileged user permission tests run as.
var nobody = &syscall.Credential{Uid: 65534, Gid: 65534}

// helperMain runs one helper command; its output is one line.
func helperMain(args []string) int {
	if len(args) == 0 {
		fmt.Println("usage: helper try|flock|fcntl|getlk ...")
		return 2
	}
	var err error
	switch args[0] {
	case "try":
		err = helperTry(args[1:])
	case "flock", "fcntl":
		return helperHold(args)
	case "getlk":
		return helperGetlk(args[1:])
	case "writefiles":
		return helperWriteFiles(args[1:])
	case "serverops":
		return helperServerOps(args[1:])
	case "migrationwriter":
		return helperMigrationWriter(args[1:])
	default:
		fmt.Printf("unknown helper command %q\n", args[0])
		return 2
	}
	fmt.Println(outcome(err))
	return 0
}

// outcome is what a helper prints for an error: ok, or the errno's name.
func outcome(err error) string {
	if err == nil {
		return "ok"
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errnoName(errno)
	}
	return "error: " + oneLine(err.Error())
}

func errnoName(e syscall.Errno) string {
	if n := unix.ErrnoName(e); n != "" {
		return n
	}
	return fmt.Sprintf("errno %d", int(e))
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// helperTry runs one system call named by args[0] on the paths after it.
func helperTry(args []string) error {
	if len(args) < 2 {
		return fmt.Errorf("try: want OP PATH...")
	}
	op, p := args[0], args[1]
	arg := func(i int) string {
		if i < len(args) {
			return args[i]
		}
		return ""
	}
	switch op {
	case "stat":
		var st unix.Stat_t
		return unix.Stat(p, &st)
	case "read":
		fd, err := unix.Open(p, unix.O_RDONLY, 0)
		if err == nil {
			unix.Close(fd)
		}
		return err
	case "write":
		fd, err := unix.Open(p, unix.O_WRONLY, 0)
		if err == nil {
			_, err = unix.Write(fd, []byte(arg(2)))
			unix.Close(fd)
		}
		return err
	case "create":
		fd, err := unix.Open(p, unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY, 0o644)
		if err == nil {
			unix.Close(fd)
		}
		return err
	case "readdir":
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = f.Readdirnames(-1)
		return err
	case "mkdir":
		return unix.Mkdir(p, 0o755)
	case "rmdir":
		return unix.Rmdir(p)
	case "unlink":
		return unix.Unlink(p)
	case "rename":
		return unix.Rename(p, arg(2))
	case "link":
		return unix.Link(p, arg(2))
	case "symlink":
		return unix.Symlink(arg(2), p)
	case "chmod":
		m, err := strconv.ParseUint(arg(2), 8, 32)
		if err != nil {
			return err
		}
		return unix.Chmod(p, uint32(m))
	case "chown":
		uid, _ := strconv.Atoi(arg(2))
		gid, _ := strconv.Atoi(arg(3))
		return unix.Chown(p, uid, gid)
	case "truncate":
		n, _ := strconv.ParseInt(arg(2), 10, 64)
		return unix.Truncate(p, n)
	case "ftruncate", "fallocate", "otrunc":
		return tryOnDescriptor(op, p)
	case "utimens-now":
		ts := []unix.Timespec{{Nsec: unix.UTIME_NOW}, {Nsec: unix.UTIME_NOW}}
		return unix.UtimesNanoAt(unix.AT_FDCWD, p, ts, 0)
	case "utimens":
		ts := []unix.Timespec{{Sec: 1000}, {Sec: 1000}}
		return unix.UtimesNanoAt(unix.AT_FDCWD, p, ts, 0)
	case "setxattr":
		return unix.Setxattr(p, arg(2), []byte(arg(3)), 0)
	case "removexattr":
		return unix.Removexattr(p, arg(2))
	case "access":
		m, _ := strconv.Atoi(arg(2))
		return unix.Faccessat(unix.AT_FDCWD, p, uint32(m), unix.AT_EACCESS)
	default:
		return fmt.Errorf("unknown try op %q", op)
	}
}

// helperHold takes a lock without waiting: "flock PATH ex|sh" or
// "fcntl PATH w|r START LEN". It prints the outcome; when it got the lock
// it holds it until its stdin closes, then exits (which releases it).
func helperHold(args []string) int {
	if len(args) < 3 {
		fmt.Println("usage: flock PATH ex|sh | fcntl PATH w|r START LEN")
		return 2
	}
	fd, err := unix.Open(args[1], unix.O_RDWR, 0)
	if err != nil {
		fmt.Println(outcome(err))
		return 0
	}
	if args[0] == "flock" {
		how := unix.LOCK_EX
		if args[2] == "sh" {
			how = unix.LOCK_SH
		}
		err = unix.Flock(fd, how|unix.LOCK_NB)
	} else {
		lk, perr := parseLock(args[2:])
		if perr != nil {
			fmt.Println(perr)
			return 2
		}
		err = unix.FcntlFlock(uintptr(fd), unix.F_SETLK, lk)
	}
	fmt.Println(outcome(err))
	if err == nil {
		io.Copy(io.Discard, os.Stdin)
	}
	return 0
}

// helperGetlk prints the lock F_GETLK reports for "PATH w|r START LEN":
// "unlck", or "TYPE START LEN PID".
func helperGetlk(args []string) int {
	if len(args) < 4 {
		fmt.Println("usage: getlk PATH w|r START LEN")
		return 2
	}
	fd, err := unix.Open(args[0], unix.O_RDWR, 0)
	if err != nil {
		fmt.Println(outcome(err))
		return 0
	}
	lk, err := parseLock(args[1:])
	if err != nil {
		fmt.Println(err)
		return 2
	}
	if err := unix.FcntlFlock(uintptr(fd), unix.F_GETLK, lk); err != nil {
		fmt.Println(outcome(err))
		return 0
	}
	fmt.Println(describeLock(lk))
	return 0
}

func parseLock(args []string) (*unix.Flock_t, error) {
	if len(args) < 3 {
		return nil, fmt.Errorf("want w|r START LEN")
	}
	lk := &unix.Flock_t{Type: unix.F_WRLCK, Whence: io.SeekStart}
	if args[0] == "r" {
		lk.Type = unix.F_RDLCK
	}
	var err error
	if lk.Start, err = strconv.ParseInt(args[1], 10, 64); err != nil {
		return nil, err
	}
	if lk.Len, err = strconv.ParseInt(args[2], 10, 64); err != nil {
		return nil, err
	}
	return lk, nil
}

func describeLock(lk *unix.Flock_t) string {
	switch lk.Type {
	case unix.F_UNLCK:
		return "unlck"
	case unix.F_WRLCK:
		return fmt.Sprintf("w %d %d %d", lk.Start, lk.Len, lk.Pid)
	default:
		return fmt.Sprintf("r %d %d %d", lk.Start, lk.Len, lk.Pid)
	}
}

// helperCmd prepares the helper binary as a child process.
func helperCmd(cred *syscall.Credential, args ...string) *exec.Cmd {
	cmd := exec.Command(helperBin, args...)
	cmd.Env = append(os.Environ(), helperEnv+"=1")
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	return cmd
}

// helper runs one helper command to its end as cred and returns its line.
func helper(t testing.TB, cred *syscall.Credential, args ...string) string {
	t.Helper()
	needBinary(t)
	out, err := helperCmd(cred, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("helper %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// asNobody runs one system call as uid 65534 and returns "ok" or the errno
// name.
func asNobody(t testing.TB, args ...string) string {
	t.Helper()
	return helper(t, nobody, append([]string{"try"}, args...)...)
}

// holder is a helper process that may hold a lock.
type holder struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	first string // the outcome of its attempt
}

// startHolder starts a helper that tries a lock and, if it got it, holds it
// until release.
func startHolder(t testing.TB, args ...string) *holder {
	t.Helper()
	needBinary(t)
	cmd := helperCmd(nil, args...)
	stdin, err := cmd.StdinPipe()
	must(t, err, "helper stdin")
	stdout, err := cmd.StdoutPipe()
	must(t, err, "helper stdout")
	cmd.Stderr = os.Stderr
	must(t, cmd.Start(), "start helper")
	h := &holder{cmd: cmd, stdin: stdin}
	t.Cleanup(func() { h.release() })
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(stdout).ReadString('\n')
		line <- strings.TrimSpace(s)
		io.Copy(io.Discard, stdout)
	}()
	select {
	case h.first = <-line:
	case <-time.After(30 * time.Second):
		t.Fatalf("helper %v printed nothing in 30s", args)
	}
	return h
}

// release ends the helper, dropping its locks, and waits for it.
func (h *holder) release() {
	if h.stdin == nil {
		return
	}
	h.stdin.Close()
	h.stdin = nil
	done := make(chan struct{})
	go func() { h.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		h.cmd.Process.Kill()
		<-done
	}
}
