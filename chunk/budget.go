package chunk

import "sync"

// budget is the memory all Writers of a Store share. acquire blocks while
// the budget is spent and uploads are under way that will give memory back;
// when nothing is in flight it lets the caller overdraw rather than wait
// forever for memory only the caller itself could free (by FlushTo or
// Finish).
type budget struct {
	mu       sync.Mutex
	cond     *sync.Cond
	limit    int64
	used     int64
	inflight int
}

func newBudget(limit int64) *budget {
	b := &budget{limit: limit}
	b.cond = sync.NewCond(&b.mu)
	return b
}

func (b *budget) acquire(n int64) {
	b.mu.Lock()
	for b.used > 0 && b.used+n > b.limit && b.inflight > 0 {
		b.cond.Wait()
	}
	b.used += n
	b.mu.Unlock()
}

func (b *budget) release(n int64) {
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
	b.cond.Broadcast()
}

// uploadStarted and uploadDone count uploads that will release memory.
func (b *budget) uploadStarted() {
	b.mu.Lock()
	b.inflight++
	b.mu.Unlock()
}

func (b *budget) uploadDone(freed int64) {
	b.mu.Lock()
	b.inflight--
	b.used -= freed
	b.mu.Unlock()
	b.cond.Broadcast()
}

func (b *budget) inUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// uploading is the number of uploads under way.
func (b *budget) uploading() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return int64(b.inflight)
}
