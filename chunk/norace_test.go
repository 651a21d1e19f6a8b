//go:build !race

package chunk

const raceDetector = false
