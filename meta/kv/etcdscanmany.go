package kv

import (
	"context"

	clientv3 "go.etcd.io/etcd/client/v3"
)

var _ ManyScanner = (*etcdTx)(nil)

// ScanMany reads the first page of every range in requests of up to
// etcd's operation limit: one request for a batch of inodes' keys where
// Scan would send one per inode. A range whose limit exceeds a page is
// scanned on its own.
func (t *etcdTx) ScanMany(ranges []ScanRange) ([][]KeyValue, error) {
	if t.spec {
		if len(t.scansWanted) == 0 {
			for _, r := range ranges {
				t.scansWanted = append(t.scansWanted, scanRange{begin: string(r.Begin), end: string(r.End), limit: r.Limit})
			}
		}
		return nil, errNoSpeculation
	}
	out := make([][]KeyValue, len(ranges))
	pages := make([]*clientv3.GetResponse, len(ranges))
	var ops []clientv3.Op
	var need []int
	for i, r := range ranges {
		if r.Limit <= 0 || r.Limit > etcdPage {
			kvs, err := t.Scan(r.Begin, r.End, r.Limit)
			if err != nil {
				return nil, err
			}
			out[i] = kvs
			continue
		}
		if p := t.takePrescan(string(r.Begin), string(r.End), r.Limit, 0); p != nil {
			pages[i] = p
			continue
		}
		need = append(need, i)
	}
	for len(need) > 0 {
		batch := need[:min(len(need), etcdMaxTxnOps)]
		need = need[len(batch):]
		ops = ops[:0]
		opts := t.readOpts()
		for _, i := range batch {
			r := ranges[i]
			ops = append(ops, clientv3.OpGet(string(r.Begin), append(opts, clientv3.WithRange(string(r.End)), clientv3.WithLimit(int64(r.Limit)))...))
		}
		var resp *clientv3.TxnResponse
		err := t.s.call(t.ctx, true, func(ctx context.Context) (err error) {
			resp, err = t.s.cli.Txn(ctx).Then(ops...).Commit()
			return err
		})
		if err != nil {
			return nil, err
		}
		t.noteRev(resp.Header.Revision)
		for j, i := range batch {
			pages[i] = (*clientv3.GetResponse)(resp.Responses[j].GetResponseRange())
		}
	}
	for i, page := range pages {
		if page == nil {
			continue
		}
		out[i] = t.appendPage(make([]KeyValue, 0, len(page.Kvs)), page)
		t.noteScanned(ranges[i].Begin, ranges[i].End, out[i], page.More)
	}
	return out, nil
}
