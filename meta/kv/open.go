package kv

// OpenMem returns a fresh, empty in-memory volume (mem://): every call is a
// new volume, lost when the engine is closed.
func OpenMem() *Engine { return New(NewMemStore(), "") }
