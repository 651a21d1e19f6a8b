//go:build race

package chunk

// raceDetector: the race detector makes sync.Pool drop some of what it is
// given, so buffer counts mean little under it.
const raceDetector = true
