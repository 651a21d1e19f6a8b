package meta

import "sync"

// Hold returns the engine calls go to now and keeps it open until
// release is called: a CloseReplaced that replaced it in the meantime
// leaves the closing to the last release, which then returns Close's
// error. A migration run inside a mount's process (package control)
// holds the mount's own engine as its SRC: the mount's client leaves
// that engine at the switch, while the migrator still reads the
// acknowledgements in SRC's change log.
func (t *Tracker) Hold() (Engine, func() error) {
	for {
		e := t.current.Load()
		e.holding.add()
		if t.current.Load() == e {
			var once sync.Once
			return e.engine, func() error {
				var err error
				once.Do(func() {
					if e.holding.release() {
						err = e.engine.Close()
					}
				})
				return err
			}
		}
		// Swapped meanwhile: CloseReplaced may have looked before the add.
		if e.holding.release() {
			_ = e.engine.Close()
		}
	}
}

// HoldCurrent is Hold on the client's Tracker: the engine beneath the
// client's own wrappers, kept open until release.
func (c *Client) HoldCurrent() (Engine, func() error) { return c.tracker.Hold() }

// holds counts an engine's holders.
type holds struct {
	mu      sync.Mutex
	count   int
	closing bool // replaced: the last release closes the engine
}

func (h *holds) add() {
	h.mu.Lock()
	h.count++
	h.mu.Unlock()
}

// release ends one hold and reports whether the engine must be closed
// now (it was replaced, and this was the last hold).
func (h *holds) release() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.count--
	return h.count == 0 && h.closing
}

// handOver reports whether a holder will close the engine; if so, the
// last release does.
func (h *holds) handOver() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.count == 0 {
		return false
	}
	h.closing = true
	return true
}
