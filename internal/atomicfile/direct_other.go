//go:build !linux

package atomicfile

// CanWriteDirect is false: O_DIRECT is used on Linux only.
func CanWriteDirect(data []byte) bool { return false }

// WriteDirect is Linux only; elsewhere callers use Write.
func WriteDirect(path string, data []byte, tempPrefix string, sync bool) error {
	return ErrNoDirect
}
