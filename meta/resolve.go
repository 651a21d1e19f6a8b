package meta

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// ResolvePath finds the inode at path in the volume, from the root: a path
// that does not exist is an error that names it.
func ResolvePath(ctx context.Context, eng Engine, path string) (Ino, error) {
	ino := RootIno
	for _, name := range strings.Split(path, "/") {
		if name == "" || name == "." {
			continue
		}
		next, _, err := eng.Lookup(ctx, ino, name)
		if errors.Is(err, ErrNotFound) || errors.Is(err, ErrNotDir) {
			return 0, fmt.Errorf("%s does not exist in the volume (give a path from the volume's root)", path)
		}
		if err != nil {
			return 0, fmt.Errorf("look up %s: %w", path, err)
		}
		ino = next
	}
	return ino, nil
}
