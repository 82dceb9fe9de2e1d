package lab

import "slices"

// Thread is a strand of the built-in library that a teacher can follow on
// its own, such as "The network". The front page lists the built-ins by
// thread so that a class can take one kind of failure at a time; the
// teaching order (scenarios.Order) stays the order within each thread.
type Thread struct {
	Title string   // the heading, as "The network"
	About string   // one sentence: what its lessons have in common
	Names []string // its built-ins, in teaching order
}

// Threads lists the threads of the built-in library in the order a course
// would take them: the worker, the network, the receiver, the lease
// service, then the data itself. Every built-in is in exactly one
// (TestThreadsCoverLibrary). The slice and its names are the caller's own.
func Threads() []Thread {
	out := slices.Clone(threads)
	for i := range out {
		out[i].Names = slices.Clone(out[i].Names)
	}
	return out
}

var threads = []Thread{
	{
		Title: "Pauses and checks",
		About: "A worker can stop at any moment, and what it checked before it stopped may no longer be true when it goes on.",
		Names: []string{"paused-worker", "longer-lease", "killed-worker", "pause-before-acquire",
			"check-then-pause", "check-at-write", "renew-keeps-lease"},
	},
	{
		Title: "The network",
		About: "A request can be held up, overtaken or sent twice: the receiver decides when it arrives, not when it left.",
		Names: []string{"delayed-request", "old-token-first", "register-on-acquire", "duplicate-retry",
			"release-then-reacquire"},
	},
	{
		Title: "The receiver",
		About: "Fencing is only as good as the receiver that compares the tokens: " +
			"how it compares, what it remembers, and whether it takes a token at all.",
		Names: []string{"repeated-current-token", "several-writes-one-lease", "racy-receiver",
			"forgetful-receiver", "external-side-effect", "scope-mismatch", "keys-forgotten",
			"two-leases-one-worker"},
	},
	{
		Title: "The lease service",
		About: "Tokens trust one lease service that never grants a lease twice and never forgets one; here it does both.",
		Names: []string{"issuer-failover", "split-brain", "lease-service-forgets"},
	},
	{
		Title: "Data freshness",
		About: "A write can come from the rightful holder and still carry old data: " +
			"written by a holder that had lost its lease, or computed before someone else's update.",
		Names: []string{"delayed-request-arrives-first", "stale-read-fresh-token"},
	},
}
