package object

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/minio/minio-go/v7/pkg/s3utils"
)

// S3 keeps objects in a bucket of an S3-compatible service. It does not
// retry: Open wraps it with WithRetry, the one place retries live.
type S3 struct {
	client *minio.Client
	bucket string
	prefix string // key prefix inside the bucket, "" or ending in "/"
	name   string // for messages: scheme://host/bucket, never credentials
	region string
}

var (
	_ Store      = (*S3)(nil)
	_ GetterInto = (*S3)(nil)
)

// NewS3 parses bucketURL and makes a client; it sends no request.
//
// http(s)://host:port/bucket[/prefix] is path-style addressing;
// http(s)://bucket.host:port is virtual-host style. opts.Addressing
// overrides the choice.
func NewS3(bucketURL string, opts Options) (*S3, error) {
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return newS3(bucketURL, opts, newTransport(timeout))
}

func newS3(bucketURL string, opts Options, transport http.RoundTripper) (*S3, error) {
	u, err := url.Parse(bucketURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("bucket %q is not an S3 URL (use http(s)://host:port/bucket)", bucketURL)
	}
	endpoint := u.Host
	bucket, prefix, _ := strings.Cut(strings.Trim(u.Path, "/"), "/")
	lookup := minio.BucketLookupPath
	if bucket == "" {
		host, rest, ok := strings.Cut(u.Host, ".")
		if !ok {
			return nil, fmt.Errorf("bucket URL %s names no bucket (use http(s)://host:port/bucket or http(s)://bucket.host)", u.Redacted())
		}
		bucket, endpoint, lookup = host, rest, minio.BucketLookupDNS
	}
	switch opts.Addressing {
	case "":
	case "path":
		lookup = minio.BucketLookupPath
	case "virtual":
		lookup = minio.BucketLookupDNS
	default:
		return nil, fmt.Errorf("unknown S3 addressing %q (use path or virtual)", opts.Addressing)
	}
	if err := s3utils.CheckValidBucketNameStrict(bucket); err != nil {
		return nil, fmt.Errorf("bucket name %q is not valid for S3: %v", bucket, err)
	}
	if prefix != "" {
		prefix += "/"
	}
	client, err := minio.New(endpoint, &minio.Options{
		Creds:        credentials.NewStaticV4(opts.AccessKey, opts.SecretKey, ""),
		Secure:       u.Scheme == "https",
		Region:       opts.Region,
		BucketLookup: lookup,
		Transport:    transport,
		MaxRetries:   1, // WithRetry retries, with backoff and a budget
	})
	if err != nil {
		return nil, fmt.Errorf("S3 endpoint %s: %v", endpoint, err)
	}
	return &S3{client: client, bucket: bucket, prefix: prefix, region: opts.Region,
		name: fmt.Sprintf("%s://%s/%s", u.Scheme, endpoint, bucket) + "/" + prefix}, nil
}

// newTransport bounds connecting and waiting for headers, and keeps enough
// idle connections for parallel uploads and downloads.
func newTransport(timeout time.Duration) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	t.ResponseHeaderTimeout = timeout
	t.MaxIdleConns = 256
	t.MaxIdleConnsPerHost = 256
	t.DisableCompression = true
	return t
}

func (s *S3) String() string { return strings.TrimSuffix(s.name, "/") }

// s3Error turns a client error into one line, marked ErrNotExist or
// ErrPermanent where trying again cannot help.
func (s *S3) s3Error(op, key string, err error) error {
	resp := minio.ToErrorResponse(err)
	switch resp.Code {
	case "NoSuchKey", "NotFound":
		return fmt.Errorf("%s: %w", key, ErrNotExist)
	case "AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch", "InvalidToken", "ExpiredToken":
		return permanent("%s %s: access denied by %s (%s: %s); check the access key and secret key", op, key, s, resp.Code, resp.Message)
	case "NoSuchBucket":
		return permanent("%s %s: bucket %s does not exist (create it with 'cairn format')", op, key, s)
	case "InvalidBucketName", "BucketAlreadyExists", "AllAccessDisabled":
		return permanent("%s: %s refuses bucket %q (%s: %s); choose another name", op, s, s.bucket, resp.Code, resp.Message)
	}
	if resp.StatusCode >= 400 && resp.StatusCode < 500 && resp.StatusCode != http.StatusRequestTimeout &&
		resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusConflict {
		// The request itself is wrong; sending it again cannot help.
		return permanent("%s %s on %s: %s (%s, HTTP %d)", op, key, s, resp.Message, resp.Code, resp.StatusCode)
	}
	if resp.StatusCode == http.StatusServiceUnavailable {
		return fmt.Errorf("%s %s on %s: %s (%s): %w", op, key, s, resp.Message, resp.Code, ErrUnavailable)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // the URL is in s already, the cause is what matters
	}
	return fmt.Errorf("%s %s on %s: %w", op, key, s, err)
}

type permanentError struct{ msg string }

func (e *permanentError) Error() string        { return e.msg }
func (e *permanentError) Is(target error) bool { return target == ErrPermanent }

func permanent(format string, args ...any) error {
	return &permanentError{fmt.Sprintf(format, args...)}
}

// Create makes the bucket when it is missing and proves that objects can
// be written and deleted in it.
func (s *S3) Create(ctx context.Context) error {
	ok, err := s.client.BucketExists(ctx, s.bucket)
	if err != nil {
		return s.s3Error("check bucket", s.bucket, err)
	}
	if !ok {
		err = s.client.MakeBucket(ctx, s.bucket, minio.MakeBucketOptions{Region: s.region})
		if err != nil && minio.ToErrorResponse(err).Code != "BucketAlreadyOwnedByYou" {
			return s.s3Error("create bucket", s.bucket, err)
		}
	}
	probe := s.prefix + "cairn-write-check"
	if _, err := s.client.PutObject(ctx, s.bucket, probe, bytes.NewReader([]byte("cairn")), 5, minio.PutObjectOptions{}); err != nil {
		return s.s3Error("write to bucket", probe, err)
	}
	if err := s.client.RemoveObject(ctx, s.bucket, probe, minio.RemoveObjectOptions{}); err != nil {
		return s.s3Error("delete from bucket", probe, err)
	}
	return nil
}

func (s *S3) Put(ctx context.Context, key string, data []byte) error {
	if err := checkKey(key); err != nil {
		return err
	}
	_, err := s.client.PutObject(ctx, s.bucket, s.prefix+key, bytes.NewReader(data), int64(len(data)),
		minio.PutObjectOptions{ContentType: "application/octet-stream", DisableMultipart: true, DisableContentSha256: true})
	if err != nil {
		return s.s3Error("put", key, err)
	}
	return nil
}

func (s *S3) Get(ctx context.Context, key string, off, limit int64) ([]byte, error) {
	return s.get(ctx, key, off, limit, nil)
}

// GetInto reads the whole object into buf when it fits there.
func (s *S3) GetInto(ctx context.Context, key string, buf []byte) ([]byte, error) {
	return s.get(ctx, key, 0, -1, buf)
}

func (s *S3) get(ctx context.Context, key string, off, limit int64, buf []byte) ([]byte, error) {
	if off < 0 {
		off = 0
	}
	if limit == 0 {
		if _, err := s.Head(ctx, key); err != nil {
			return nil, err
		}
		return []byte{}, nil
	}
	var opts minio.GetObjectOptions
	if off > 0 || limit > 0 {
		end := int64(0)
		if limit > 0 {
			end = off + limit - 1
		}
		if err := opts.SetRange(off, end); err != nil {
			return nil, fmt.Errorf("get %s: %w", key, err)
		}
	}
	obj, err := s.client.GetObject(ctx, s.bucket, s.prefix+key, opts)
	if err != nil {
		return nil, s.s3Error("get", key, err)
	}
	defer obj.Close()
	data, err := readAll(obj, limit, buf)
	if err != nil {
		if minio.ToErrorResponse(err).Code == "InvalidRange" {
			return []byte{}, nil // off at or past the end
		}
		return nil, s.s3Error("get", key, err)
	}
	return data, nil
}

func (s *S3) Head(ctx context.Context, key string) (Info, error) {
	st, err := s.client.StatObject(ctx, s.bucket, s.prefix+key, minio.StatObjectOptions{})
	if err != nil {
		return Info{}, s.s3Error("head", key, err)
	}
	return Info{Key: key, Size: st.Size, ModTime: st.LastModified}, nil
}

func (s *S3) Delete(ctx context.Context, key string) error {
	err := s.client.RemoveObject(ctx, s.bucket, s.prefix+key, minio.RemoveObjectOptions{})
	if err != nil {
		if errors.Is(s.s3Error("delete", key, err), ErrNotExist) {
			return nil
		}
		return s.s3Error("delete", key, err)
	}
	return nil
}

func (s *S3) List(ctx context.Context, prefix, after string, limit int) ([]Info, error) {
	limit = listLimit(limit)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	opts := minio.ListObjectsOptions{Prefix: s.prefix + prefix, Recursive: true, MaxKeys: min(limit, 1000)}
	if after != "" {
		opts.StartAfter = s.prefix + after
	}
	var out []Info
	ch := s.client.ListObjects(ctx, s.bucket, opts)
	for o := range ch {
		if len(out) == limit {
			cancel() // stop the lister; what else it sends is dropped
			continue
		}
		if o.Err != nil {
			cancel()
			for range ch {
			}
			return nil, s.s3Error("list", prefix, o.Err)
		}
		out = append(out, Info{Key: strings.TrimPrefix(o.Key, s.prefix), Size: o.Size, ModTime: o.LastModified})
	}
	return out, nil
}

// readAll reads a GetObject response into buf when it fits there, else
// into a buffer sized from the response's length, so that a block is not
// copied while the buffer grows.
func readAll(obj *minio.Object, limit int64, buf []byte) ([]byte, error) {
	st, err := obj.Stat()
	if err != nil {
		return nil, err
	}
	hint := st.Size
	if limit > 0 && limit < hint {
		hint = limit
	}
	if buf != nil && hint <= int64(cap(buf)) {
		buf = buf[:hint]
		if _, err := io.ReadFull(obj, buf); err != nil {
			return nil, err
		}
		return buf, nil
	}
	var b bytes.Buffer
	b.Grow(int(hint) + bytes.MinRead)
	if _, err := b.ReadFrom(obj); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
