package object

import (
	"fmt"
	"strings"
	"time"
)

// Options configure the stores that need more than a bucket name. Fields a
// store does not use are ignored.
type Options struct {
	// AccessKey and SecretKey authenticate to S3. Open never logs or returns
	// SecretKey in a message.
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
}

// Open returns the store of the given kind ("file", "mem", "s3") for bucket:
// a directory for file, a name for mem, a URL such as
// http://127.0.0.1:9000/vol for s3. It does not touch the store; call Create
// to make and check the bucket.
func Open(storage, bucket string, opts Options) (Store, error) {
	switch storage {
	case "file", "":
		return NewFile(strings.TrimPrefix(bucket, "file://"))
	case "mem":
		return NewMem(bucket), nil
	case "s3":
		return nil, fmt.Errorf("storage s3 is not built yet (issue 7)")
	default:
		return nil, fmt.Errorf("unknown storage %q (use file, mem or s3)", storage)
	}
}
