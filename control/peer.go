package control

import (
	"fmt"
	"net"
	"unsafe"

	"golang.org/x/sys/unix"

	"cairn/meta"
)

// maxGroups is the kernel's limit on supplementary groups (NGROUPS_MAX).
const maxGroups = 65536

// peerCred is the identity of the process at the other end of conn, as the
// kernel recorded it when that process connected: uid, gid and
// supplementary groups.
func peerCred(conn *net.UnixConn) (meta.Cred, error) {
	raw, err := conn.SyscallConn()
	if err != nil {
		return meta.Cred{}, err
	}
	var cred meta.Cred
	var inner error
	err = raw.Control(func(fd uintptr) {
		uc, err := unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
		if err != nil {
			inner = fmt.Errorf("read the caller's credentials: %w", err)
			return
		}
		cred = meta.Cred{Uid: uc.Uid, Gid: uc.Gid}
		cred.Gids, inner = peerGroups(int(fd))
	})
	if err == nil {
		err = inner
	}
	return cred, err
}

// peerGroups reads SO_PEERGROUPS, an array of gid_t the kernel fills; a
// buffer too small fails with ERANGE and the size it needs.
func peerGroups(fd int) ([]uint32, error) {
	gids := make([]uint32, 64)
	for {
		size := uint32(len(gids) * 4)
		_, _, errno := unix.Syscall6(unix.SYS_GETSOCKOPT, uintptr(fd), unix.SOL_SOCKET, unix.SO_PEERGROUPS,
			uintptr(unsafe.Pointer(&gids[0])), uintptr(unsafe.Pointer(&size)), 0)
		switch {
		case errno == 0:
			return gids[:size/4], nil
		case errno == unix.ERANGE && len(gids) < maxGroups:
			gids = make([]uint32, min(max(int(size/4), 2*len(gids)), maxGroups))
		default:
			return nil, fmt.Errorf("read the caller's groups: %w", errno)
		}
	}
}
