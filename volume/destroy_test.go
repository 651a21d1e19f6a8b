package volume_test

import (
	"context"
	"testing"

	"cairn/backup"
	"cairn/chunk"
	"cairn/meta"
	"cairn/volume"
)

// lateClient stands for a client still mounted during destroy --force: it
// puts a block and a metadata backup just before the metadata goes.
type lateClient struct {
	meta.Engine
	v *volume.Volume
}

func (l lateClient) Destroy(ctx context.Context) error {
	for _, key := range []string{chunk.KeyPrefix + "late-block", backup.Prefix + "late-backup"} {
		if err := l.v.Objects.Put(ctx, key, []byte("late")); err != nil {
			return err
		}
	}
	d, _ := meta.Capability[meta.Destroyer](l.Engine)
	return d.Destroy(ctx)
}

// TestDestroySweepsAgain: objects put while Destroy worked, before the
// metadata went, are deleted too.
func TestDestroySweepsAgain(t *testing.T) {
	url := format(t, testFormat(t))
	v, err := volume.Open(ctx, url, volume.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close(ctx) }) // its metadata is gone: errors expected
	writeFile(t, v, "f", pattern(200<<10), true)
	v.Engine = lateClient{Engine: v.Engine, v: v}
	done, err := v.Destroy(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if done.Objects < 6 {
		t.Errorf("Destroy counted %d objects, want the file's blocks and the two late ones", done.Objects)
	}
	for _, prefix := range []string{chunk.KeyPrefix, backup.Prefix} {
		if left, err := v.Objects.List(ctx, prefix, "", 10); err != nil || len(left) > 0 {
			t.Errorf("after Destroy, %s holds %v (%v)", prefix, left, err)
		}
	}
}
