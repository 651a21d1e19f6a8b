package kv_test

import (
	"context"
	"strings"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"cairn/internal/testenv"
	"cairn/meta"
	"cairn/meta/engines"
)

// A cluster with authentication: the URL's user and password let a client
// in; a wrong password is one clear error at Open.
func TestEtcdAuth(t *testing.T) {
	c := testenv.Etcd(t)
	ctx := context.Background()
	cli, err := clientv3.New(clientv3.Config{Endpoints: c.Endpoints()})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	for _, step := range []func() error{
		func() error { _, err := cli.RoleAdd(ctx, "root"); return err },
		func() error { _, err := cli.UserAdd(ctx, "root", "s3cret"); return err },
		func() error { _, err := cli.UserGrantRole(ctx, "root", "root"); return err },
		func() error { _, err := cli.AuthEnable(ctx); return err },
	} {
		if err := step(); err != nil {
			t.Fatalf("set up etcd authentication: %v", err)
		}
	}
	hosts := strings.Join(c.Endpoints(), ",")
	e, err := engines.Open("etcd://root:s3cret@" + hosts + "/authvol")
	if err != nil {
		t.Fatalf("open with the right password: %v", err)
	}
	defer e.Close()
	if err := e.Init(ctx, meta.Format{Name: "auth"}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Load(ctx); err != nil {
		t.Fatal(err)
	}
	bad, err := engines.Open("etcd://root:wrong@" + hosts + "/authvol")
	if err == nil {
		bad.Close()
		t.Fatal("open with a wrong password succeeded")
	}
	if !strings.Contains(err.Error(), "password") || strings.Contains(err.Error(), ":wrong") || strings.Contains(err.Error(), "\n") {
		t.Errorf("error shows the password or spans lines: %q", err)
	}
	t.Log(err)
	anon, err := engines.Open("etcd://" + hosts + "/authvol")
	if err == nil {
		_, err = anon.Load(ctx)
		anon.Close()
	}
	if err == nil || !strings.Contains(err.Error(), "requires a user") {
		t.Fatalf("a client without credentials: %v", err)
	}
	t.Log(err)
}
