package live

import (
	"context"
	"time"
)

// Lock is one worker's client of the issuer, through the issuer's own
// recipe. A method's error is an operation whose answer is unknown.
type Lock interface {
	// Session opens what holds a lease (an etcd lease, a ZooKeeper
	// session); ok false when the issuer has none (Redis, SQL).
	Session(ctx context.Context) (ok bool, err error)
	// Acquire asks for the lock with a new owner value: the token, or
	// granted false when refused. Blocking recipes wait until granted.
	Acquire(ctx context.Context, owner string) (token int64, granted bool, err error)
	// Renew restarts the lease's countdown: false when it was lost.
	Renew(ctx context.Context) (bool, error)
	// Release gives the lock back: false when the lease had ended.
	Release(ctx context.Context) (bool, error)
	// Clear removes what an unknown acquire or release may have left,
	// so that the next acquire is a new one.
	Clear(ctx context.Context)
	// Blocking: an acquire waits for the lock (etcd, ZooKeeper) rather
	// than being refused.
	Blocking() bool
	// TTL is the lease the issuer granted, when it says (etcd, ZooKeeper).
	TTL() time.Duration
	Close()
}
