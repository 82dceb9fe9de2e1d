// Package receiver is a reference receiver for `fencelab probe`: a small
// HTTP service that decides writes by their fencing tokens, kept in memory
// or in SQLite, correct or broken on purpose (a check-then-write race, a
// token forgotten on restart) so that the probe has something to catch.
package receiver

import (
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Policy is the fencing policy a receiver claims, spelled as in lab.
type Policy string

// The policies a receiver can implement: the fenced family of the model.
const (
	Fenced           Policy = "fenced"
	FencedStrict     Policy = "fenced-strict"
	FencedIdempotent Policy = "fenced-idempotent"
	FencedRegister   Policy = "fenced-register"
)

// Policies lists the policies in the model's order.
var Policies = []Policy{Fenced, FencedStrict, FencedIdempotent, FencedRegister}

// Flaw is a mistake a receiver makes on purpose.
type Flaw string

// The flaws: none, a race between check and write, a token kept in memory.
const (
	Correct   Flaw = ""
	Racy      Flaw = "racy"
	Forgetful Flaw = "forgetful"
)

// Options say what a receiver claims and how it fails.
type Options struct {
	Policy Policy
	Flaw   Flaw
	// Window is a pause between the check and the write of a racy
	// receiver, to widen the race for a demonstration; zero by default.
	Window time.Duration
}

// Validate reports an unknown policy or flaw, or a window without the race.
func (o Options) Validate() error {
	switch o.Policy {
	case Fenced, FencedStrict, FencedIdempotent, FencedRegister:
	default:
		return fmt.Errorf("unknown policy %q: use fenced, fenced-strict, fenced-idempotent or fenced-register", o.Policy)
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

// Write is one POST /writes.
type Write struct {
	Resource string  `json:"resource"`
	Value    string  `json:"value"`
	Token    *int64  `json:"token"`
	Scope    string  `json:"scope"`
	Op       *string `json:"op"`
	ID       string  `json:"id"`
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
// that produced it, both null before any write.
type Holding struct {
	Value *string `json:"value"`
	Token *int64  `json:"token"`
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

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
