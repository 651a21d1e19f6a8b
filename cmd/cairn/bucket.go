package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
)

// prepareBucket makes sure the object store can take the volume's blocks
// before the volume is formatted, so that a bad bucket never leaves a
// volume behind whose data has nowhere to go.
func prepareBucket(ctx context.Context, storage, bucket string) error {
	switch storage {
	case "mem":
		return nil
	case "file":
	default:
		return fmt.Errorf("unknown storage %q: use file or mem", storage)
	}
	if err := os.MkdirAll(bucket, 0o755); err != nil {
		return fmt.Errorf("cannot create bucket directory %s: %v (give a writable --bucket DIR)", bucket, unwrapPath(err))
	}
	probe, err := os.CreateTemp(bucket, ".cairn-probe-*")
	if err != nil {
		return fmt.Errorf("bucket directory %s is not writable: %v (give a writable --bucket DIR)", bucket, unwrapPath(err))
	}
	name := probe.Name()
	_, werr := probe.Write([]byte("cairn"))
	if werr == nil {
		werr = probe.Sync()
	}
	probe.Close()
	os.Remove(name)
	if werr != nil {
		return fmt.Errorf("bucket directory %s is not writable: %v (give a writable --bucket DIR)", filepath.Clean(bucket), unwrapPath(werr))
	}
	return nil
}

// unwrapPath drops the operation and path from an *os.PathError, which the
// message around it already names.
func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
