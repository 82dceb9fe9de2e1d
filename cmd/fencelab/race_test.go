//go:build race

package main

// raceEnabled builds the binary of the process tests with -race when the
// tests have it, so that the build reuses the packages already compiled.
const raceEnabled = true
