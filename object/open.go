package object

import (
	"fmt"
	"strings"
	"time"
)

// Options configure the stores that need more than a bucket name. Fields a
// store does not use are ignored.
type Options struct {
	// AccessKey and SecretKey authenticate to S3 (empty: read from the
	// environment, see Credentials). No message ever contains SecretKey.
	AccessKey string
	SecretKey string
	// Region of an S3 bucket; "" lets the client discover it.
	Region string
	// Addressing is "path", "virtual" or "" (decided by the bucket URL: a
	// bucket in the path is path-style, a bucket in the host name is
	// virtual-host style).
	Addressing string
	// Timeout bounds one request to a remote store (default 30s).
	Timeout time.Duration
	// Retries is how many times a failed request to a remote store is tried
	// again before the error is returned (default 5; negative: none).
	Retries int
	// RetryFor, when positive, replaces Retries: a failed request to a
	// remote store is tried again until this much time has passed since
	// its first attempt (a mount's --io-timeout).
	RetryFor time.Duration
	// DeferSync lets the file store's Put return before the object is
	// flushed to disk; the store's Sync (see Syncer) then flushes all at
	// once. For callers that call Sync before they rely on their objects.
	DeferSync bool
}

// Open returns the store of the given kind ("file", "mem", "s3") for bucket:
// a directory for file, a name for mem, a URL such as
// http://127.0.0.1:9000/vol for s3. It does not touch the store; call Create
// to make and check the bucket.
func Open(storage, bucket string, opts Options) (Store, error) {
	switch storage {
	case "file", "":
		f, err := NewFile(strings.TrimPrefix(bucket, "file://"))
		if err != nil {
			return nil, err
		}
		f.deferSync = opts.DeferSync
		return f, nil
	case "mem":
		return NewMem(bucket), nil
	case "s3":
		opts.AccessKey, opts.SecretKey = opts.Credentials()
		s, err := NewS3(bucket, opts)
		if err != nil {
			return nil, err
		}
		if opts.RetryFor > 0 {
			return WithRetryFor(s, opts.RetryFor, opts.Timeout), nil
		}
		return WithRetry(s, opts.Retries, opts.Timeout), nil
	default:
		return nil, fmt.Errorf("unknown storage %q (use file, mem or s3)", storage)
	}
}
