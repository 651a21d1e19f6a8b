package kv

// ScanRange is one range of a ScanMany: up to Limit pairs (Limit > 0)
// with Begin <= key < End.
type ScanRange struct {
	Begin, End []byte
	Limit      int
}

// ManyScanner is implemented by transactions that can scan several ranges
// in one request (etcd); ScanMany returns each range's pairs as Scan
// would, in the order of ranges, all at the transaction's revision.
type ManyScanner interface {
	ScanMany(ranges []ScanRange) ([][]KeyValue, error)
}

// scanMany scans every range in tx, in one request where the store can,
// else one Scan after the other.
func scanMany(tx Tx, ranges []ScanRange) ([][]KeyValue, error) {
	if len(ranges) == 0 {
		return nil, nil
	}
	if s, ok := tx.(ManyScanner); ok {
		return s.ScanMany(ranges)
	}
	out := make([][]KeyValue, len(ranges))
	for i, r := range ranges {
		kvs, err := tx.Scan(r.Begin, r.End, r.Limit)
		if err != nil {
			return nil, err
		}
		out[i] = kvs
	}
	return out, nil
}
