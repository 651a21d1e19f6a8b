package object

import (
	"context"
	"sort"
	"strings"
	"sync"
	"time"
)

// Mem is a store in process memory, for tests and throw-away volumes. Its
// objects vanish with the process.
type Mem struct {
	name string
	mu   sync.RWMutex
	objs map[string]memObject
}

type memObject struct {
	data    []byte
	modTime time.Time
}

var (
	_ Store      = (*Mem)(nil)
	_ GetterInto = (*Mem)(nil)
)

// NewMem returns an empty in-memory store; name only labels it.
func NewMem(name string) *Mem {
	return &Mem{name: name, objs: make(map[string]memObject)}
}

func (m *Mem) String() string { return "mem://" + m.name }

func (m *Mem) Create(ctx context.Context) error { return nil }

func (m *Mem) Put(ctx context.Context, key string, data []byte) error {
	if err := checkKey(key); err != nil {
		return err
	}
	cp := append([]byte(nil), data...)
	m.mu.Lock()
	m.objs[key] = memObject{data: cp, modTime: time.Now()}
	m.mu.Unlock()
	return nil
}

// find returns the object key, or ErrNotExist.
func (m *Mem) find(key string) (memObject, error) {
	m.mu.RLock()
	o, ok := m.objs[key]
	m.mu.RUnlock()
	if !ok {
		return memObject{}, notExist(key)
	}
	return o, nil
}

func (m *Mem) Get(ctx context.Context, key string, off, limit int64) ([]byte, error) {
	o, err := m.find(key)
	if err != nil {
		return nil, err
	}
	return cut(o.data, off, limit), nil
}

// GetInto copies the object into buf when it fits there.
func (m *Mem) GetInto(ctx context.Context, key string, buf []byte) ([]byte, error) {
	o, err := m.find(key)
	if err != nil {
		return nil, err
	}
	if len(o.data) > cap(buf) {
		return cut(o.data, 0, -1), nil
	}
	return append(buf[:0], o.data...), nil
}

func (m *Mem) Head(ctx context.Context, key string) (Info, error) {
	o, err := m.find(key)
	if err != nil {
		return Info{}, err
	}
	return Info{Key: key, Size: int64(len(o.data)), ModTime: o.modTime}, nil
}

func (m *Mem) Delete(ctx context.Context, key string) error {
	m.mu.Lock()
	delete(m.objs, key)
	m.mu.Unlock()
	return nil
}

func (m *Mem) List(ctx context.Context, prefix, after string, limit int) ([]Info, error) {
	limit = listLimit(limit)
	m.mu.RLock()
	var keys []string
	for k := range m.objs {
		if strings.HasPrefix(k, prefix) && k > after {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	if len(keys) > limit {
		keys = keys[:limit]
	}
	out := make([]Info, len(keys))
	for i, k := range keys {
		o := m.objs[k]
		out[i] = Info{Key: k, Size: int64(len(o.data)), ModTime: o.modTime}
	}
	m.mu.RUnlock()
	return out, nil
}
