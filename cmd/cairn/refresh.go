package main

import (
	"time"
)

// showEvery calls show five times a second while a long command runs, on
// a terminal only, not with --quiet (see showProgress), and once more when the returned stop
// is called.
func showEvery(show func()) (stop func()) {
	if !showProgress() {
		return func() {}
	}
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-quit:
				show()
				return
			case <-t.C:
				show()
			}
		}
	}()
	return func() {
		close(quit)
		<-done
	}
}
