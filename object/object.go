// Package object defines the object stores that hold a volume's blocks: a
// small interface and its implementations (a local directory, memory, S3).
// It knows nothing of metadata, files or blocks: keys and bytes only.
package object

import (
	"context"
	"errors"
	"time"
)

// ErrNotExist is returned by Get and Head for a key that is not stored.
var ErrNotExist = errors.New("object does not exist")

// Store is a flat namespace of immutable objects.
//
// All methods are safe for concurrent use. Put replaces an object whole and
// atomically: a reader sees the old bytes or the new, never a mix, and a
// crash never leaves a torn object; it does not keep data once it returns
// (the caller may reuse the buffer). Delete of a missing key succeeds.
// Errors other than ErrNotExist may be transient (the caller may retry).
type Store interface {
	// String names the store for messages, e.g. "file:///var/cairn/vol".
	String() string
	// Create makes the bucket or directory if it does not exist and checks
	// that it can be written.
	Create(ctx context.Context) error
	Put(ctx context.Context, key string, data []byte) error
	// Get returns limit bytes from off (limit < 0: to the end).
	Get(ctx context.Context, key string, off, limit int64) ([]byte, error)
	Head(ctx context.Context, key string) (Info, error)
	Delete(ctx context.Context, key string) error
	// List returns up to limit objects whose keys start with prefix and sort
	// after after, in key order.
	List(ctx context.Context, prefix, after string, limit int) ([]Info, error)
}

// Info describes a stored object.
type Info struct {
	Key     string
	Size    int64
	ModTime time.Time
}
