// Package scenarios holds the built-in scenario library as embedded JSON files, one per scenario.
package scenarios

import "embed"

// FS holds the built-in scenario files, each named after its scenario
// ("paused-worker.json"). The files are data, not code, so that a user can
// copy one, edit it and replay it; lab.LoadLibrary parses and validates them.
//
//go:embed *.json
var FS embed.FS

// Order lists every built-in scenario by name in teaching order: the failure
// and how to reproduce it, the worker's own checks, fencing at the receiver
// and its limits, then broken receivers and broken issuers. Listings follow
// it rather than the file names' alphabetical order. The slice is the
// caller's own.
func Order() []string { return append([]string(nil), order...) }

var order = []string{
	"paused-worker",
	"longer-lease",
	"killed-worker",
	"pause-before-acquire",
	"check-then-pause",
	"check-at-write",
	"renew-keeps-lease",
	"delayed-request",
	"delayed-request-arrives-first",
	"old-token-first",
	"register-on-acquire",
	"repeated-current-token",
	"several-writes-one-lease",
	"duplicate-retry",
	"release-then-reacquire",
	"racy-receiver",
	"forgetful-receiver",
	"external-side-effect",
	"scope-mismatch",
	"issuer-failover",
	"stale-read-fresh-token",
	"split-brain",
	"lease-service-forgets",
	"keys-forgotten",
	"two-leases-one-worker",
}
