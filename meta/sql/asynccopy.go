package sql

import "sync"

// asyncCopier runs another copier's copies on a goroutine of their own, one
// at a time and in the order given, so that a load reads and decodes the
// next rows while the database writes the last ones. copy hands its rows
// over and returns at once (it waits only while a copy is already queued
// behind the one running); an error is returned by the next call after it.
type asyncCopier struct {
	next  copier
	queue chan copyJob
	// spare holds the argument buffers not in use: a job's buffer goes
	// back once its copy is done.
	spare chan []any
	done  chan struct{}

	closing sync.Once

	mu  sync.Mutex
	err error
}

type copyJob struct {
	table string
	cols  []string
	args  []any
}

func startAsyncCopier(next copier) *asyncCopier {
	a := &asyncCopier{next: next, queue: make(chan copyJob, 1), spare: make(chan []any, 2), done: make(chan struct{})}
	a.spare <- nil
	a.spare <- nil
	go a.run()
	return a
}

func (a *asyncCopier) run() {
	defer close(a.done)
	for job := range a.queue {
		if a.failed() == nil {
			if err := a.next.copy(job.table, job.cols, job.args); err != nil {
				a.mu.Lock()
				a.err = err
				a.mu.Unlock()
			}
		}
		clear(job.args)
		a.spare <- job.args[:0]
	}
}

func (a *asyncCopier) failed() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.err
}

func (a *asyncCopier) rowsPerCopy() int { return a.next.rowsPerCopy() }

func (a *asyncCopier) copy(table string, cols []string, args []any) error {
	if err := a.failed(); err != nil {
		return err
	}
	buf := append(<-a.spare, args...)
	a.queue <- copyJob{table: table, cols: cols, args: buf}
	return nil
}

// close waits for the copies handed over, stops the goroutine and closes
// the copier beneath; it returns the first error. A second close returns
// the same.
func (a *asyncCopier) close() error {
	a.closing.Do(func() {
		close(a.queue)
		<-a.done
		err := a.next.close()
		a.mu.Lock()
		if a.err == nil {
			a.err = err
		}
		a.mu.Unlock()
	})
	return a.failed()
}
