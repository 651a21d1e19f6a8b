package redis

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// config is what a metadata URL says: how to reach the server and which
// key prefix holds the volume.
type config struct {
	opts   *goredis.Options
	prefix string
	where  string // the URL without its password, for messages
}

// parseURL reads redis://[user:pass@]host[:port]/db, rediss://… (TLS, with
// tls-ca-cert-file, tls-cert-file, tls-key-file and insecure-skip-verify)
// or unix:///path/redis.sock?db=N; each may add prefix=NAME. A password
// not in the URL comes from REDIS_PASSWORD or META_PASSWORD.
func parseURL(raw string) (*config, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("malformed Redis URL: %w", err)
	}
	o := &goredis.Options{
		Protocol:              2,
		DisableIdentity:       true,
		MaxRetries:            -1, // a script may have run before the connection broke: never resend it blindly
		DialTimeout:           3 * time.Second,
		DialerRetries:         1,
		ReadTimeout:           30 * time.Second,
		WriteTimeout:          30 * time.Second,
		ContextTimeoutEnabled: true,
	}
	q := u.Query()
	dbText := strings.TrimPrefix(u.Path, "/")
	switch u.Scheme {
	case "redis", "rediss":
		host, port := u.Hostname(), u.Port()
		if host == "" {
			host = "localhost"
		}
		if port == "" {
			port = "6379"
		}
		o.Network, o.Addr = "tcp", net.JoinHostPort(host, port)
	case "unix":
		if u.Path == "" {
			return nil, fmt.Errorf("Redis URL %q names no socket: use unix:///path/redis.sock?db=N", redact(u))
		}
		o.Network, o.Addr = "unix", u.Path
		dbText = q.Get("db")
	default:
		return nil, fmt.Errorf("not a Redis URL: scheme %q (use redis://, rediss:// or unix://)", u.Scheme)
	}
	if dbText != "" {
		db, err := strconv.Atoi(dbText)
		if err != nil || db < 0 {
			return nil, fmt.Errorf("Redis URL %q: database %q is not a number (use e.g. redis://host:6379/1)", redact(u), dbText)
		}
		o.DB = db
	}
	if u.User != nil {
		o.Username = u.User.Username()
		o.Password, _ = u.User.Password()
	}
	if o.Password == "" {
		o.Password = os.Getenv("REDIS_PASSWORD")
	}
	if o.Password == "" {
		o.Password = os.Getenv("META_PASSWORD")
	}
	c := &config{opts: o, prefix: "cairn", where: redact(u)}
	if p := q.Get("prefix"); p != "" {
		c.prefix = p
	}
	if u.Scheme == "rediss" {
		if o.TLSConfig, err = tlsConfig(u.Hostname(), q); err != nil {
			return nil, fmt.Errorf("Redis URL %q: %w", c.where, err)
		}
	}
	for k := range q {
		switch k {
		case "db", "prefix", "tls-ca-cert-file", "tls-cert-file", "tls-key-file", "insecure-skip-verify":
		default:
			return nil, fmt.Errorf("Redis URL %q: unknown option %q (known: db, prefix, tls-ca-cert-file, tls-cert-file, tls-key-file, insecure-skip-verify)", c.where, k)
		}
	}
	return c, nil
}

func tlsConfig(host string, q url.Values) (*tls.Config, error) {
	t := &tls.Config{ServerName: host, MinVersion: tls.VersionTLS12}
	if v := q.Get("insecure-skip-verify"); v != "" {
		skip, err := strconv.ParseBool(v)
		if err != nil {
			return nil, fmt.Errorf("insecure-skip-verify=%q is not true or false", v)
		}
		t.InsecureSkipVerify = skip
	}
	if f := q.Get("tls-ca-cert-file"); f != "" {
		pem, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("read CA certificate: %w", err)
		}
		t.RootCAs = x509.NewCertPool()
		if !t.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("no PEM certificate in %s", f)
		}
	}
	cert, key := q.Get("tls-cert-file"), q.Get("tls-key-file")
	if (cert == "") != (key == "") {
		return nil, fmt.Errorf("tls-cert-file and tls-key-file go together")
	}
	if cert != "" {
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return nil, fmt.Errorf("load client certificate: %w", err)
		}
		t.Certificates = []tls.Certificate{pair}
	}
	return t, nil
}

// redact drops the password from u for messages.
func redact(u *url.URL) string {
	c := *u
	if c.User != nil {
		if _, has := c.User.Password(); has {
			c.User = url.UserPassword(c.User.Username(), "xxxxx")
		}
	}
	return c.String()
}
