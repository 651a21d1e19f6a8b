package object_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"cairn/internal/testenv"
	"cairn/object"
	"cairn/object/objecttest"
)

func openMinIO(t testing.TB, m *testenv.MinIOServer, bucket string, opts object.Options) object.Store {
	t.Helper()
	if opts.AccessKey == "" {
		opts.AccessKey, opts.SecretKey = m.AccessKey, m.SecretKey
	}
	s, err := object.Open("s3", m.URL(bucket), opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestS3(t *testing.T) {
	m := testenv.MinIO(t)
	var n atomic.Int64
	objecttest.Run(t, func(t *testing.T) object.Store {
		return openMinIO(t, m, fmt.Sprintf("cairn-test-%d", n.Add(1)), object.Options{})
	})
}

func TestS3KeyPrefix(t *testing.T) {
	m := testenv.MinIO(t)
	var n atomic.Int64
	objecttest.Run(t, func(t *testing.T) object.Store {
		return openMinIO(t, m, fmt.Sprintf("shared/vol%d", n.Add(1)), object.Options{})
	})
}

func TestS3BadInput(t *testing.T) {
	m := testenv.MinIO(t)
	ctx := context.Background()
	check := func(name string, s object.Store, openErr error, want string) {
		t.Helper()
		err := openErr
		if err == nil {
			err = s.Create(ctx)
		}
		if err == nil {
			t.Errorf("%s: no error", name)
			return
		}
		msg := err.Error()
		if strings.Contains(msg, "\n") || !strings.Contains(msg, want) || strings.Contains(msg, m.SecretKey) {
			t.Errorf("%s: error %q: want one line containing %q and no secret", name, msg, want)
		}
	}

	s, err := object.Open("s3", m.URL("vol"), object.Options{AccessKey: m.AccessKey, SecretKey: "wrong"})
	check("wrong secret", s, err, "access denied")
	s, err = object.Open("s3", m.URL("vol"), object.Options{AccessKey: "nobody", SecretKey: m.SecretKey})
	check("unknown access key", s, err, "access denied")

	start := time.Now()
	port := testenv.FreePort(t)
	s, err = object.Open("s3", fmt.Sprintf("http://127.0.0.1:%d/vol", port), object.Options{AccessKey: "a", SecretKey: "b", Retries: 2})
	check("unreachable endpoint", s, err, "connection refused")
	if s != nil && time.Since(start) > 20*time.Second {
		t.Errorf("unreachable endpoint took %v to report", time.Since(start))
	}

	for _, bad := range []string{"Upper_Case", "ab", "bad..dots"} {
		_, err = object.Open("s3", m.URL(bad), object.Options{})
		check("bucket "+bad, nil, err, bad)
	}
	// A name S3's rules allow but this server reserves.
	start = time.Now()
	s, err = object.Open("s3", m.URL("minio"), object.Options{AccessKey: m.AccessKey, SecretKey: m.SecretKey})
	check("reserved bucket", s, err, "choose another name")
	if time.Since(start) > 10*time.Second {
		t.Errorf("a refused bucket name took %v to report: retried?", time.Since(start))
	}
	for _, bad := range []string{"ftp://host/b", "127.0.0.1:9000/b", "http:///b"} {
		_, err = object.Open("s3", bad, object.Options{})
		check("url "+bad, nil, err, "not an S3 URL")
	}
	_, err = object.Open("s3", m.URL("vol"), object.Options{Addressing: "sideways"})
	check("addressing", nil, err, "sideways")
}

// TestS3SecretFromEnv: Open takes credentials missing from its options
// from cairn's variables or, when those are not set, from the names other
// S3 tools read; a wrong secret there is refused, so it is what is used.
func TestS3SecretFromEnv(t *testing.T) {
	m := testenv.MinIO(t)
	for _, c := range []struct {
		bucket         string
		own, common    [2]string // access and secret key
		wantRefusedFor string
	}{
		{"envvol", [2]string{m.AccessKey, m.SecretKey}, [2]string{}, ""},
		{"commonenv", [2]string{}, [2]string{m.AccessKey, m.SecretKey}, ""},
		{"commonwrong", [2]string{}, [2]string{m.AccessKey, "wrong-secret"}, "access denied"},
	} {
		t.Setenv(object.AccessKeyEnv, c.own[0])
		t.Setenv(object.SecretKeyEnv, c.own[1])
		t.Setenv(object.CommonAccessKeyEnv, c.common[0])
		t.Setenv(object.CommonSecretKeyEnv, c.common[1])
		s, err := object.Open("s3", m.URL(c.bucket), object.Options{Retries: -1})
		if err != nil {
			t.Fatal(err)
		}
		err = s.Create(context.Background())
		switch {
		case c.wantRefusedFor == "" && err != nil:
			t.Errorf("%s: Create with credentials from the environment: %v", c.bucket, err)
		case c.wantRefusedFor != "" && (err == nil || !strings.Contains(strings.ToLower(err.Error()), c.wantRefusedFor)):
			t.Errorf("%s: Create with a wrong secret in $%s: %v, want %q", c.bucket, object.CommonSecretKeyEnv, err, c.wantRefusedFor)
		}
	}
}

func TestS3VirtualHost(t *testing.T) {
	m := testenv.MinIO(t)
	// MinIO serves bucket.localhost as a virtual host (MINIO_DOMAIN);
	// connections go to loopback whatever the name resolves to.
	url := fmt.Sprintf("http://vhost.localhost:%d", m.Port)
	s3, err := object.NewS3DialingTo(url, object.Options{AccessKey: m.AccessKey, SecretKey: m.SecretKey, Region: "us-east-1"}, m.Endpoint())
	if err != nil {
		t.Fatal(err)
	}
	s := object.WithRetry(s3, 0, 0)
	if got := s.String(); got != fmt.Sprintf("http://localhost:%d/vhost", m.Port) {
		t.Errorf("String() = %s", got)
	}
	if err := s.Create(context.Background()); err != nil {
		t.Fatalf("virtual-host Create: %v", err)
	}
	if err := s.Put(context.Background(), "k", []byte("v")); err != nil {
		t.Fatal(err)
	}
	// The same bucket through path-style addressing sees the object.
	p := openMinIO(t, m, "vhost", object.Options{})
	if b, err := p.Get(context.Background(), "k", 0, -1); err != nil || string(b) != "v" {
		t.Errorf("path-style Get of a virtual-host Put: %q, %v", b, err)
	}
}

func TestS3ServerDownThenBack(t *testing.T) {
	m := testenv.MinIO(t)
	ctx := context.Background()
	s := openMinIO(t, m, "faults", object.Options{Retries: 1, Timeout: 2 * time.Second})
	if err := s.Create(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, "before", []byte("kept")); err != nil {
		t.Fatal(err)
	}
	m.Stop()
	err := s.Put(ctx, "during", []byte("x"))
	if err == nil {
		t.Fatal("Put with the server down succeeded")
	}
	if errors.Is(err, object.ErrNotExist) || strings.Contains(err.Error(), "\n") {
		t.Errorf("Put with the server down: %q, want a one-line transient error", err)
	}
	m.Start()
	if b, err := s.Get(ctx, "before", 0, -1); err != nil || string(b) != "kept" {
		t.Errorf("after restart Get(before) = %q, %v", b, err)
	}
	if err := s.Put(ctx, "after", []byte("y")); err != nil {
		t.Errorf("Put after restart: %v", err)
	}
}
