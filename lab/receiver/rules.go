// Package receiver is a reference receiver for `fencelab probe`: a small
// HTTP service that decides writes by their fencing tokens, kept in memory
// or in SQLite, correct or broken on purpose (a check-then-write race, a
// token forgotten on restart) so that the probe has something to catch.
package receiver

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"fencelab/lab"
)

// Policies lists the policies a receiver can implement, in the model's
// order: the ones a real receiver could claim
// (lab.Policy.ClaimableByReceiver) that check a token (the fenced family,
// lab.Policy.ChecksToken) or a version (cas, lab.Policy.ChecksVersion).
// Its rules read the policy's facets (Strict, Idempotent, Registers,
// ChecksVersion), never its name.
var Policies = slices.DeleteFunc(lab.Policies(), func(p lab.Policy) bool {
	return !p.ClaimableByReceiver() || !p.ChecksToken() && !p.ChecksVersion()
})

// Flaw is a mistake a receiver makes on purpose.
type Flaw string

// The flaws: none, a race between check and write, a token (under cas: a
// version) kept in memory.
const (
	Correct   Flaw = ""
	Racy      Flaw = "racy"
	Forgetful Flaw = "forgetful"
)

// Options say what a receiver claims and how it fails.
type Options struct {
	Policy lab.Policy
	Flaw   Flaw
	// Window is a pause between the check and the write of a racy
	// receiver, to widen the race for a demonstration; zero by default.
	Window time.Duration
}

// Validate reports an unknown policy or flaw, or a window without the race.
func (o Options) Validate() error {
	if !slices.Contains(Policies, o.Policy) {
		return fmt.Errorf("unknown policy %q: use %s", o.Policy, lab.PolicyChoice(Policies))
	}
	switch o.Flaw {
	case Correct, Racy, Forgetful:
	default:
		return fmt.Errorf("unknown flaw %q: use racy or forgetful", o.Flaw)
	}
	if o.Window < 0 || (o.Window > 0 && o.Flaw != Racy) {
		return errors.New("--window widens the race of --flaw racy only, and must not be negative")
	}
	return nil
}

// Write is one POST /writes. ExpectVersion is the version condition of
// an rmw write: the version its writer knows (null: no condition).
type Write struct {
	Resource      string  `json:"resource"`
	Value         string  `json:"value"`
	Token         *int64  `json:"token"`
	Scope         string  `json:"scope"`
	Op            *string `json:"op"`
	ID            string  `json:"id"`
	ExpectVersion *int64  `json:"expect_version"`
}

// Outcome is a receiver's answer to a write.
type Outcome string

// The three answers of the contract.
const (
	Applied    Outcome = "applied"
	Suppressed Outcome = "suppressed"
	Rejected   Outcome = "rejected"
)

// Decision is an outcome with its reason, empty unless rejected.
type Decision struct {
	Outcome Outcome `json:"outcome"`
	Reason  string  `json:"reason,omitempty"`
}

// Holding is what a resource holds: its value and the token of the write
// that produced it, both null before any write, and its version, the
// number of writes it applied (0 before any; left out by a store that
// does not count them, the PostgreSQL and MySQL one).
type Holding struct {
	Value   *string `json:"value"`
	Token   *int64  `json:"token"`
	Version *int64  `json:"version,omitempty"`
}

// matches is the version condition of cas: a write without one passes;
// an rmw write passes only when the resource is still at the version its
// writer expects, that is when nothing landed since the writer learnt it.
func matches(expect *int64, version int64) (bool, string) {
	if expect == nil || *expect == version {
		return true, ""
	}
	return false, fmt.Sprintf("stale: the resource is at version %d, the write expected %d", version, *expect)
}

// admits is the fencing rule: token t passes when the receiver remembers
// nothing yet or t is at least (strict: greater than) what it remembers.
func admits(strict bool, t, remembered *int64) (bool, string) {
	switch {
	case t == nil:
		return false, "the write carries no token"
	case remembered == nil:
		return true, ""
	case strict && *t <= *remembered:
		return false, fmt.Sprintf("%d is not greater than %d, already remembered", *t, *remembered)
	case *t < *remembered:
		return false, fmt.Sprintf("%d < %d, already remembered", *t, *remembered)
	}
	return true, ""
}
