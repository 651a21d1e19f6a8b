package kv

import (
	"context"
	"encoding/binary"
	"fmt"
	"time"

	"cairn/meta"
)

var _ meta.FloorProber = (*Engine)(nil)

// tagFloor is the scratch key of the floor probes (see keys.go): no
// operation of the volume reads or writes it, and it is outside every
// range the engine scans.
const tagFloor = 'W'

// floorStore is a Store whose cheapest write and read are requests of
// their own, cheaper than a transaction (etcd: a plain Put and Get instead
// of a compare-and-swap Txn). Stores without it are probed with a
// transaction of one Put and one of one Get, which on embedded stores is
// already their floor (Badger: one commit at the store's sync setting).
type floorStore interface {
	probePut(ctx context.Context, key, value []byte) error
	probeGet(ctx context.Context, key []byte) error
}

// ProbeWrite writes the scratch key once, durably as every commit.
func (e *Engine) ProbeWrite(ctx context.Context) error {
	key := e.k.key(tagFloor)
	value := binary.BigEndian.AppendUint64(nil, uint64(time.Now().UnixNano()))
	var err error
	if fs, ok := e.store.(floorStore); ok {
		err = fs.probePut(ctx, key, value)
	} else {
		err = e.store.Txn(ctx, func(tx Tx) error { tx.Put(key, value); return nil })
	}
	if err != nil {
		return fmt.Errorf("%s floor write: %w", e.store.Name(), err)
	}
	return nil
}

// ProbeRead reads the scratch key once.
func (e *Engine) ProbeRead(ctx context.Context) error {
	key := e.k.key(tagFloor)
	var err error
	if fs, ok := e.store.(floorStore); ok {
		err = fs.probeGet(ctx, key)
	} else {
		err = e.store.Txn(ctx, func(tx Tx) error { _, err := tx.Get(key); return err })
	}
	if err != nil {
		return fmt.Errorf("%s floor read: %w", e.store.Name(), err)
	}
	return nil
}

var _ floorStore = (*EtcdStore)(nil)

// probePut is one Put, which etcd acknowledges once a majority of members
// has it in their fsync'd Raft log.
func (s *EtcdStore) probePut(ctx context.Context, key, value []byte) error {
	return s.call(ctx, false, func(ctx context.Context) error {
		_, err := s.cli.Put(ctx, string(key), string(value))
		return err
	})
}

// probeGet is one linearizable Get, as the engine's reads are.
func (s *EtcdStore) probeGet(ctx context.Context, key []byte) error {
	return s.call(ctx, true, func(ctx context.Context) error {
		_, err := s.cli.Get(ctx, string(key))
		return err
	})
}
