//go:build race

package server_test

// raceEnabled: the race detector makes the server's work several times
// dearer, which timed bounds allow for.
const raceEnabled = true
