//go:build !linux

package chunk

// writeDirect is Linux only; elsewhere the disk cache writes through the
// page cache.
func canWriteDirect(data []byte) bool { return false }

func writeDirect(path string, data []byte, tempPrefix string) error {
	return errNoDirect
}
