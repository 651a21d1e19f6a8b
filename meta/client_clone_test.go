package meta_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"cairn/meta"
	"cairn/meta/kv"
)

// TestCloneTreeChecksName: a clone's new name gets the checks every other
// new name gets, although the Cloner is called beneath meta.Checked.
func TestCloneTreeChecksName(t *testing.T) {
	ctx := context.Background()
	eng := kv.OpenMem()
	defer eng.Close()
	if err := eng.Init(ctx, meta.Format{Name: "t", BlockSize: 4 << 20, Version: meta.FormatVersion}, false); err != nil {
		t.Fatal(err)
	}
	c := meta.NewClient(eng, meta.ClientConfig{})
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	src, _, err := c.Mknod(ctx, meta.RootCred, meta.RootIno, "src", meta.TypeFile, 0644, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		want error
	}{
		{"a/b", meta.ErrInvalid},
		{"..", meta.ErrInvalid},
		{"nul\x00", meta.ErrInvalid},
		{strings.Repeat("n", meta.MaxName+1), meta.ErrNameTooLong},
	} {
		if _, err := c.CloneTree(ctx, meta.RootCred, src, meta.RootIno, tc.name, false, nil); !errors.Is(err, tc.want) {
			t.Errorf("clone to %.20q: %v, want %v", tc.name, err, tc.want)
		}
	}
	if _, err := c.CloneTree(ctx, meta.RootCred, src, meta.RootIno, "copy", false, nil); err != nil {
		t.Fatalf("clone to a good name: %v", err)
	}
}
