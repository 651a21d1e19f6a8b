package volume

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"cairn/meta"
)

// resolveSubdir finds the directory at dir, a path from the volume's root
// ("/a/b" or "a/b"; "" and "/" are the root itself), name by name as the
// superuser. Symbolic links are not followed: a mount's root must be a
// directory of its own.
func resolveSubdir(ctx context.Context, client *meta.Client, dir string) (meta.Ino, error) {
	clean := path.Clean("/" + dir)
	ino := meta.RootIno
	if clean == "/" {
		return ino, nil
	}
	walked := ""
	for _, name := range strings.Split(clean[1:], "/") {
		walked += "/" + name
		next, a, err := client.Lookup(ctx, meta.RootCred, ino, name)
		switch {
		case errors.Is(err, meta.ErrNotFound):
			return 0, fmt.Errorf("sub-directory %s does not exist in the volume (create it through a mount of the whole volume first)", clean)
		case err != nil:
			return 0, fmt.Errorf("find the sub-directory %s: %w", clean, err)
		case !a.IsDir():
			return 0, fmt.Errorf("sub-directory %s: %s in the volume is not a directory", clean, walked)
		}
		ino = next
	}
	return ino, nil
}
