package control

import (
	"fmt"

	"cairn/meta"
)

// writable refuses a change on a read-only mount, as the file system does.
func (c *call) writable() error {
	if c.v.ReadOnly() {
		return fmt.Errorf("%s: %w: the mount is read-only", c.shown(), meta.ErrReadOnly)
	}
	return nil
}
