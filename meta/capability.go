package meta

// Capability finds an optional interface T that an engine implements
// (Dumper, FloorProber, Describer, …) on e or on the engine behind e's
// wrappers (Checked, WithServerWait, the metrics wrapper): a wrapper says
// what it wraps with an Unwrap() Engine method, and is looked behind in
// turn. A wrapper does not pass optional interfaces on by itself, so
// callers that need one go through Capability.
func Capability[T any](e Engine) (T, bool) {
	for e != nil {
		if c, ok := e.(T); ok {
			return c, true
		}
		w, ok := e.(interface{ Unwrap() Engine })
		if !ok {
			break
		}
		e = w.Unwrap()
	}
	var none T
	return none, false
}
