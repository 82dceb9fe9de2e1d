// Package live runs an issuer probe: worker processes that take a real
// lock in turn (etcd, ZooKeeper, Redis, a SQL lease table), the issuer
// the probe starts itself on loopback, and the faults it injects. What
// happened goes into an issuer.History that package issuer judges.
package live

import (
	"time"

	"golang.org/x/sys/unix"
)

// The machine's monotonic clock (CLOCK_MONOTONIC), which every process
// reads alike, so the workers' times compare. It is read once with a
// system call; after that, Go's own monotonic reading (the same clock,
// read through the vDSO, without a system call) carries it on.
var anchorMono, anchorTime = monoNow(), time.Now()

func monoNow() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		panic("clock_gettime(CLOCK_MONOTONIC): " + err.Error())
	}
	return ts.Nano()
}

// mono is the monotonic clock in nanoseconds.
func mono() int64 { return anchorMono + int64(time.Since(anchorTime)) }

// since is seconds since time 0 (a mono reading).
func since(t0 int64) float64 { return float64(mono()-t0) / 1e9 }
