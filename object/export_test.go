package object

import (
	"context"
	"net"
	"time"
)

// NewS3DialingTo is NewS3 with every connection made to addr, whatever
// host name the URL holds: virtual-host addressing can then be tested on
// loopback without DNS.
func NewS3DialingTo(bucketURL string, opts Options, addr string) (*S3, error) {
	t := newTransport(10 * time.Second)
	d := &net.Dialer{Timeout: 5 * time.Second}
	t.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
		return d.DialContext(ctx, network, addr)
	}
	return newS3(bucketURL, opts, t)
}
