package kv_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cairn/internal/testenv"
	"cairn/meta"
	"cairn/meta/engines"
)

// certs writes a CA, a server certificate for 127.0.0.1 and the name
// "etcd.test", and a client certificate, as PEM files in dir.
func certs(t *testing.T, dir string) (ca, serverCert, serverKey, clientCert, clientKey string, client tls.Certificate) {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "cairn test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	write := func(name, typ string, der []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	issue := func(name string, serial int64, usage x509.ExtKeyUsage) (string, string, tls.Certificate) {
		key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
			DNSNames: []string{"etcd.test"}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		keyDER, _ := x509.MarshalECPrivateKey(key)
		certFile, keyFile := write(name+".pem", "CERTIFICATE", der), write(name+"-key.pem", "EC PRIVATE KEY", keyDER)
		pair, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			t.Fatal(err)
		}
		return certFile, keyFile, pair
	}
	ca = write("ca.pem", "CERTIFICATE", caDER)
	serverCert, serverKey, _ = issue("server", 2, x509.ExtKeyUsageServerAuth)
	clientCert, clientKey, client = issue("client", 3, x509.ExtKeyUsageClientAuth)
	return
}

// The TLS options of an etcd:// URL: cacert to trust the cluster, cert and
// key to be let in, server-name to check a name other than the address.
func TestEtcdTLS(t *testing.T) {
	dir := t.TempDir()
	ca, sc, sk, cc, ck, pair := certs(t, dir)
	c := testenv.EtcdWithTLS(t, &testenv.EtcdTLS{CertFile: sc, KeyFile: sk, CAFile: ca, ClientCert: pair})
	hosts := strings.Join(c.Endpoints(), ",")
	ctx := context.Background()
	good := "etcd://" + hosts + "/tlsvol?cacert=" + ca + "&cert=" + cc + "&key=" + ck + "&server-name=etcd.test"
	e, err := engines.Open(good)
	if err != nil {
		t.Fatalf("open over TLS: %v", err)
	}
	defer e.Close()
	if err := e.Init(ctx, meta.Format{Name: "tls"}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Load(ctx); err != nil {
		t.Fatal(err)
	}
	// Without a client certificate, or trusting no CA, the cluster is not
	// reachable: one line, in bounded time.
	for _, u := range []string{
		"etcd://" + hosts + "/tlsvol?cacert=" + ca,
		"etcd://" + hosts + "/tlsvol?cert=" + cc + "&key=" + ck + "&server-name=etcd.test",
		"etcd://" + hosts + "/tlsvol",
	} {
		start := time.Now()
		o, err := engines.Open(u)
		if err == nil {
			_, err = o.Load(ctx)
			o.Close()
		}
		if err == nil {
			t.Errorf("%s: opened the volume", u)
			continue
		}
		if time.Since(start) > 20*time.Second || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: after %v: %q", u, time.Since(start), err)
		}
		t.Logf("%s: %v", u, err)
	}
}
