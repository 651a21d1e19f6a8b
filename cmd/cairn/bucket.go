package main

import (
	"context"
	"fmt"

	"cairn/object"
)

// prepareBucket makes sure the object store can take the volume's blocks
// before the volume is formatted, so that a bad bucket never leaves a
// volume behind whose data has nowhere to go.
func prepareBucket(ctx context.Context, storage, bucket string) error {
	store, err := object.Open(storage, bucket, object.Options{})
	if err != nil {
		return err
	}
	if err := store.Create(ctx); err != nil {
		return fmt.Errorf("%w (give a writable --bucket)", err)
	}
	return nil
}
