package meta

// Capability finds an optional interface T that an engine implements
// (Dumper, FloorProber, Describer, …) on e or on the engine behind e's
// wrappers (Checked, WithServerWait, the metrics wrapper): a wrapper says
// what it wraps with an Unwrap() Engine method, and is looked behind in
// turn. A wrapper does not pass optional interfaces on by itself, so
// callers that need one go through Capability.
//
// The rule for what that means: a capability found this way is called
// beneath the wrappers, so without Checked's argument checks, the
// server-wait retries and the metrics. Administrative capabilities
// (Dumper, Destroyer, Repairer, OrphanLister, FloorProber) want none of
// them. A capability that serves a mount's file operations either takes
// only arguments meta made itself (BatchRemover: names read from the
// directory) or has its caller run the Check functions first (CloneTree
// checks the new name); one on the hot path of every operation passes
// through the wrappers instead, as UnlinkDelete does.
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
