package kv

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/pingcap/log"
	"github.com/tikv/client-go/v2/txnkv"
)

// tikvConnectTimeout bounds how long opening an unreachable cluster takes.
const tikvConnectTimeout = 10 * time.Second

// quietTiKVLogs keeps client-go's own logger (a process-wide one) to
// errors, so that its retries do not flood a user's terminal.
var quietTiKVLogs = sync.OnceFunc(func() {
	if lg, props, err := log.InitLogger(&log.Config{Level: "error"}); err == nil {
		log.ReplaceGlobals(lg, props)
	}
})

// OpenTiKVURL connects to the TiKV cluster whose PD servers a
// tikv://pd1:2379,pd2:2379/prefix URL names.
func OpenTiKVURL(rawURL string) (*Engine, error) {
	rest, ok := strings.CutPrefix(rawURL, "tikv://")
	if !ok {
		return nil, fmt.Errorf("tikv URL %s: not a tikv:// URL", rawURL)
	}
	rest, _, _ = strings.Cut(rest, "?")
	hosts, prefix, _ := strings.Cut(rest, "/")
	var pds []string
	for _, h := range strings.Split(hosts, ",") {
		if h == "" {
			return nil, fmt.Errorf("tikv URL %s: empty PD address (expected tikv://pd1:2379,pd2:2379/prefix)", rawURL)
		}
		if !strings.Contains(h, ":") {
			h += ":2379"
		}
		pds = append(pds, h)
	}
	quietTiKVLogs()
	type result struct {
		c   *txnkv.Client
		err error
	}
	done := make(chan result, 1)
	go func() {
		c, err := txnkv.NewClient(pds)
		done <- result{c, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			return nil, fmt.Errorf("cannot reach TiKV's PD at %s (check the addresses and that the cluster is up): %w", strings.Join(pds, ","), r.err)
		}
		return New(NewTiKVStore(r.c.KVStore), strings.Trim(prefix, "/")), nil
	case <-time.After(tikvConnectTimeout):
		// The client goes on trying in the background; the process is
		// about to report the error and exit.
		return nil, fmt.Errorf("cannot reach TiKV's PD at %s within %v (check the addresses and that the cluster is up)", strings.Join(pds, ","), tikvConnectTimeout)
	}
}
