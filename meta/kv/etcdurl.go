package kv

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// etcdTarget is what an etcd:// URL names.
type etcdTarget struct {
	endpoints      []string
	user, password string
	prefix         string
	tls            *tls.Config
}

// parseEtcdURL reads etcd://[user:pass@]h1:2379,h2:2379/prefix with the
// TLS options cacert, cert, key and server-name. A user without a password
// takes it from META_PASSWORD.
func parseEtcdURL(rawURL string) (etcdTarget, error) {
	var t etcdTarget
	bad := func(format string, args ...any) (etcdTarget, error) {
		return t, fmt.Errorf("etcd URL %s: %s (expected etcd://[user:pass@]host1:2379,host2:2379/prefix)", redact(rawURL), fmt.Sprintf(format, args...))
	}
	rest, ok := strings.CutPrefix(rawURL, "etcd://")
	if !ok {
		return bad("not an etcd:// URL")
	}
	rest, query, _ := strings.Cut(rest, "?")
	hosts, path, _ := strings.Cut(rest, "/")
	if i := strings.LastIndex(hosts, "@"); i >= 0 {
		user, pass, _ := strings.Cut(hosts[:i], ":")
		var err1, err2 error
		t.user, err1 = url.PathUnescape(user)
		t.password, err2 = url.PathUnescape(pass)
		if err1 != nil || err2 != nil {
			return bad("malformed user or password")
		}
		hosts = hosts[i+1:]
	}
	if t.user != "" && t.password == "" {
		// As for every engine, the password may stay out of the URL
		// (and so out of the process list).
		t.password = os.Getenv("META_PASSWORD")
	}
	for _, h := range strings.Split(hosts, ",") {
		if h == "" {
			return bad("empty host")
		}
		if !strings.Contains(h, ":") {
			h += ":2379"
		}
		t.endpoints = append(t.endpoints, h)
	}
	t.prefix = strings.Trim(path, "/")
	q, err := url.ParseQuery(query)
	if err != nil {
		return bad("malformed options: %v", err)
	}
	var caFile, certFile, keyFile, serverName string
	for k, v := range q {
		switch k {
		case "cacert":
			caFile = v[0]
		case "cert":
			certFile = v[0]
		case "key":
			keyFile = v[0]
		case "server-name":
			serverName = v[0]
		default:
			return bad("unknown option %q (known: cacert, cert, key, server-name)", k)
		}
	}
	if caFile == "" && certFile == "" && keyFile == "" && serverName == "" {
		return t, nil
	}
	t.tls = &tls.Config{ServerName: serverName, MinVersion: tls.VersionTLS12}
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return bad("read cacert: %v", err)
		}
		t.tls.RootCAs = x509.NewCertPool()
		if !t.tls.RootCAs.AppendCertsFromPEM(pem) {
			return bad("cacert %s holds no PEM certificate", caFile)
		}
	}
	if (certFile == "") != (keyFile == "") {
		return bad("cert and key go together")
	}
	if certFile != "" {
		cert, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return bad("load client certificate: %v", err)
		}
		t.tls.Certificates = []tls.Certificate{cert}
	}
	return t, nil
}

// redact hides the password of a URL in messages.
func redact(rawURL string) string {
	scheme, rest, ok := strings.Cut(rawURL, "://")
	if !ok {
		return rawURL
	}
	hosts, path, _ := strings.Cut(rest, "/")
	if i := strings.LastIndex(hosts, "@"); i >= 0 {
		if user, _, ok := strings.Cut(hosts[:i], ":"); ok {
			hosts = user + ":xxxxx" + hosts[i:]
		}
	}
	return scheme + "://" + hosts + "/" + path
}

// etcdCacheSize is how many bytes of keys' last values a client remembers
// for speculative commits.
const etcdCacheSize = 32 << 20

// etcdConnectTimeout bounds how long opening an unreachable cluster takes.
const etcdConnectTimeout = 5 * time.Second

// OpenEtcdURL connects to the cluster an etcd:// URL names and checks that
// it answers.
func OpenEtcdURL(rawURL string) (*Engine, error) {
	t, err := parseEtcdURL(rawURL)
	if err != nil {
		return nil, err
	}
	cli, err := clientv3.New(clientv3.Config{
		Endpoints:          t.endpoints,
		Username:           t.user,
		Password:           t.password,
		TLS:                t.tls,
		DialTimeout:        etcdConnectTimeout,
		DialKeepAliveTime:  10 * time.Second,
		MaxCallSendMsgSize: 2 << 20,
		Logger:             zap.NewNop(),
	})
	if err != nil {
		if errors.Is(err, rpctypes.ErrAuthFailed) {
			return nil, fmt.Errorf("etcd at %s refused user %q: wrong user name or password in the URL", strings.Join(t.endpoints, ","), t.user)
		}
		return nil, fmt.Errorf("connect to etcd at %s: %w", strings.Join(t.endpoints, ","), err)
	}
	s := &EtcdStore{cli: cli, cache: newEtcdCache(etcdCacheSize)}
	ctx, cancel := context.WithTimeout(context.Background(), etcdConnectTimeout)
	defer cancel()
	err = s.call(ctx, true, func(ctx context.Context) error {
		_, err := cli.Get(ctx, "cairn-probe", clientv3.WithCountOnly())
		return err
	})
	if errors.Is(err, rpctypes.ErrUserEmpty) || errors.Is(err, rpctypes.ErrPermissionDenied) || errors.Is(err, rpctypes.ErrInvalidAuthToken) {
		cli.Close()
		return nil, fmt.Errorf("etcd at %s requires a user with access to the volume's keys: give it in the URL, etcd://user:password@host:2379/prefix (%v)", strings.Join(t.endpoints, ","), err)
	}
	if err != nil {
		cli.Close()
		return nil, fmt.Errorf("cannot reach etcd at %s within %v (check the addresses, that the cluster is up and, if it speaks TLS, the cacert, cert and key options): %w",
			strings.Join(t.endpoints, ","), etcdConnectTimeout, err)
	}
	return New(s, t.prefix), nil
}
