package chunk

import (
	"context"
	"errors"
	"testing"

	"cairn/object"
)

// syncingStore counts Sync calls and fails them on demand.
type syncingStore struct {
	object.Store
	syncs int
	fail  error
}

func (s *syncingStore) Sync(ctx context.Context) error {
	s.syncs++
	return s.fail
}

// TestFinishSyncsLazyStore: a slice is finished only once a store that
// flushes lazily has flushed its blocks, and a failed flush fails Finish.
func TestFinishSyncsLazyStore(t *testing.T) {
	obj := &syncingStore{Store: object.NewMem("sync")}
	s, err := New(obj, Config{BlockSize: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	w := s.NewWriter(1)
	data := make([]byte, 200<<10)
	if _, err := w.WriteAt(data, 0); err != nil {
		t.Fatal(err)
	}
	if err := w.Finish(ctx, uint32(len(data))); err != nil {
		t.Fatal(err)
	}
	if obj.syncs == 0 {
		t.Error("Finish returned without flushing the store")
	}

	obj.fail = errors.New("disk gone")
	w = s.NewWriter(2)
	if _, err := w.WriteAt(data, 0); err != nil {
		t.Fatal(err)
	}
	if err := w.Finish(ctx, uint32(len(data))); err == nil || !errors.Is(err, obj.fail) {
		t.Errorf("Finish with a failing flush: %v, want the flush's error", err)
	}
	obj.fail = nil
	if err := w.Finish(ctx, uint32(len(data))); err != nil {
		t.Errorf("Finish again once the flush works: %v", err)
	}
}
