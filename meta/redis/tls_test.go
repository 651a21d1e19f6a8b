package redis

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"cairn/internal/testenv"
	"cairn/meta"
)

// TestTLS reaches a redis-server over TLS with a private CA and a client
// certificate (rediss:// with tls-* options), and fails clearly without
// the CA.
func TestTLS(t *testing.T) {
	dir := t.TempDir()
	ca, caKey := makeCert(t, dir, "ca", nil, nil)
	makeCert(t, dir, "server", ca, caKey)
	makeCert(t, dir, "client", ca, caKey)
	port := testenv.FreePort(t)
	p := func(n string) string { return filepath.Join(dir, n) }
	s := testenv.Redis(t, "--tls-port", fmt.Sprint(port), "--tls-cert-file", p("server.crt"), "--tls-key-file", p("server.key"),
		"--tls-ca-cert-file", p("ca.crt"), "--tls-auth-clients", "yes")
	_ = s
	base := fmt.Sprintf("rediss://127.0.0.1:%d/1", port)
	e := openURL(t, base+"?tls-ca-cert-file="+p("ca.crt")+"&tls-cert-file="+p("client.crt")+"&tls-key-file="+p("client.key"))
	ctx := context.Background()
	if err := e.Init(ctx, meta.Format{Name: "tls", Version: meta.FormatVersion}, false); err != nil {
		t.Fatal(err)
	}
	if f, err := e.Load(ctx); err != nil || f.Name != "tls" {
		t.Errorf("Load over TLS: %+v, %v", f, err)
	}
	_, err := Open(ctx, base+"?tls-cert-file="+p("client.crt")+"&tls-key-file="+p("client.key"))
	wantOneLine(t, err, "TLS", "tls-ca-cert-file")
}

// makeCert writes name.crt and name.key in dir: a CA when parent is nil,
// else a certificate for 127.0.0.1 signed by parent.
func makeCert(t *testing.T, dir, name string, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
	}
	if parent == nil {
		tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
		tmpl.KeyUsage |= x509.KeyUsageCertSign
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	write := func(file, kind string, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, file), pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: b}), 0600); err != nil {
			t.Fatal(err)
		}
	}
	write(name+".crt", "CERTIFICATE", der)
	write(name+".key", "EC PRIVATE KEY", keyDER)
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert, key
}
