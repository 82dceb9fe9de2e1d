// Package live runs an issuer probe: worker processes that take a real
// lock in turn (etcd, ZooKeeper, Redis, a SQL lease table), the issuer
// the probe starts itself on loopback, and the faults it injects. What
// happened goes into an issuer.History that package issuer judges.
package live

import (
	"golang.org/x/sys/unix"
)

// mono is the machine's monotonic clock (CLOCK_MONOTONIC) in
// nanoseconds: every process reads the same one, so the workers' times
// compare. Each reading is a system call of its own. Carrying one
// reading on with Go's monotonic clock is cheaper but skews each process
// by the moment between the two reads at its start, tens of milliseconds
// on a loaded machine: enough to order two grants wrongly.
func mono() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		panic("clock_gettime(CLOCK_MONOTONIC): " + err.Error())
	}
	return ts.Nano()
}

// since is seconds since time 0 (a mono reading).
func since(t0 int64) float64 { return float64(mono()-t0) / 1e9 }
