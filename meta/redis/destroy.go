package redis

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"cairn/meta"
)

var _ meta.Destroyer = (*Engine)(nil)

// volumeKey matches what follows "P:" in a key of the volume (see doc.go),
// so that Destroy leaves alone the keys of a volume whose prefix merely
// starts with P and a colon.
var volumeKey = regexp.MustCompile(`^(setting|usage|quota|quota:(max_space|max_inodes|space|inodes)|dirspace|dirinodes|nextino|nextslice|nextsession|dead|refs|sessions|sessinfo|migration|changes|changeseq|[idsxolfp][0-9]+|cl[0-9]+|c[0-9]+:[0-9]+)$`)

// globEscape quotes the characters SCAN's MATCH pattern treats specially.
var globEscape = strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`, `]`, `\]`)

// Destroy implements meta.Destroyer: it walks the volume's keys with SCAN
// and unlinks them a page at a time, the settings key last.
func (e *Engine) Destroy(ctx context.Context) error {
	setting := e.prefix + ":setting"
	match := globEscape.Replace(e.prefix) + ":*"
	var cursor uint64
	for {
		keys, next, err := e.rdb.Scan(ctx, cursor, match, 1000).Result()
		if err != nil {
			return fmt.Errorf("list the keys of the volume in Redis database %s: %w", e.where, err)
		}
		var doomed []string
		for _, k := range keys {
			if k != setting && volumeKey.MatchString(strings.TrimPrefix(k, e.prefix+":")) {
				doomed = append(doomed, k)
			}
		}
		if len(doomed) > 0 {
			if err := e.rdb.Unlink(ctx, doomed...).Err(); err != nil {
				return fmt.Errorf("delete the keys of the volume in Redis database %s: %w", e.where, err)
			}
		}
		if cursor = next; cursor == 0 {
			break
		}
	}
	if err := e.rdb.Del(ctx, setting).Err(); err != nil {
		return fmt.Errorf("delete the settings of the volume in Redis database %s: %w", e.where, err)
	}
	return nil
}
