package volume

import (
	"context"
	"errors"
	"fmt"
	"time"

	"cairn/meta"
	"cairn/meta/engines"
	"cairn/object"
)

// openObjects opens the object store of the volume and proves that it
// answers, so that bad credentials, an unreachable endpoint or a missing
// bucket are one line when the volume is opened, not EIO later. It asks
// with the store's few quick retries; the store it returns waits up to
// ioTimeout (when positive) for a store that goes away.
func openObjects(ctx context.Context, format meta.Format, opts object.Options, ioTimeout time.Duration) (object.Store, error) {
	if err := checkCredentials(format.Storage, opts); err != nil {
		return nil, fmt.Errorf("volume %q keeps its blocks in %s: %w", format.Name, engines.Redact(format.Bucket), err)
	}
	// The block store flushes a local-directory store once per slice
	// instead of once per block (see object.Syncer).
	opts.DeferSync = true
	obj, err := object.Open(format.Storage, format.Bucket, opts)
	if err != nil {
		return nil, fmt.Errorf("open the object store of volume %q: %w", format.Name, err)
	}
	if format.Storage == "s3" {
		if _, err := obj.List(ctx, "", "", 1); err != nil {
			if errors.Is(err, object.ErrPermanent) {
				return nil, fmt.Errorf("volume %q: %w", format.Name, err)
			}
			return nil, fmt.Errorf("the object store of volume %q does not answer: %w", format.Name, err)
		}
		if ioTimeout > 0 {
			opts.RetryFor = ioTimeout
			if obj, err = object.Open(format.Storage, format.Bucket, opts); err != nil {
				return nil, fmt.Errorf("open the object store of volume %q: %w", format.Name, err)
			}
		}
	}
	return obj, nil
}

// CreateStore makes sure the object store of a volume about to be
// formatted can take its blocks: the bucket exists (it is created when
// missing) and accepts writes with these credentials.
func CreateStore(ctx context.Context, storage, bucket string, opts object.Options) error {
	if err := checkCredentials(storage, opts); err != nil {
		return err
	}
	store, err := object.Open(storage, bucket, opts)
	if err != nil {
		return err
	}
	if err := store.Create(ctx); err != nil {
		switch {
		case errors.Is(err, object.ErrPermanent):
			return err // says what is wrong and what to do
		case storage == "s3":
			return fmt.Errorf("%w (is the S3 endpoint in --bucket up and reachable?)", err)
		}
		return fmt.Errorf("%w (give a writable --bucket)", err)
	}
	return nil
}
