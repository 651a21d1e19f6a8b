package object

import (
	"context"
	"io"

	"github.com/minio/minio-go/v7"
)

var _ StreamPutter = (*S3)(nil)

// putFromPartSize is the part of a streamed upload held in memory at
// once; minio-go uploads objects larger than it in parts.
const putFromPartSize = 16 << 20

// PutFrom implements StreamPutter: a multipart upload, one part at a
// time, for objects larger than a part; S3 shows the object only once
// the upload completes.
func (s *S3) PutFrom(ctx context.Context, key string, r io.ReaderAt, size int64) error {
	if err := checkKey(key); err != nil {
		return err
	}
	_, err := s.client.PutObject(ctx, s.bucket, s.prefix+key, io.NewSectionReader(r, 0, size), size,
		minio.PutObjectOptions{ContentType: "application/octet-stream", PartSize: putFromPartSize, NumThreads: 1})
	if err != nil {
		return s.s3Error("put", key, err)
	}
	return nil
}

var _ StreamPutter = (*retrying)(nil)

// PutFrom implements StreamPutter; each attempt reads r from its start.
func (r *retrying) PutFrom(ctx context.Context, key string, from io.ReaderAt, size int64) error {
	return r.do(ctx, "put "+key, func(ctx context.Context) error { return PutFrom(ctx, r.Store, key, from, size) })
}
