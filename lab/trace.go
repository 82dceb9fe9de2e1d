package lab

import "slices"

// Policy names a way of protecting the resource, spelled as in the spec.
type Policy string

// The nine policies of the spec.
const (
	Unfenced         Policy = "unfenced"
	ClientCheck      Policy = "client-check"
	Fenced           Policy = "fenced"
	FencedStrict     Policy = "fenced-strict"
	FencedIdempotent Policy = "fenced-idempotent"
	FencedRegister   Policy = "fenced-register"
	Authoritative    Policy = "authoritative"
	FencedRacy       Policy = "fenced-racy"
	CAS              Policy = "cas"
)

// Decision is the outcome word of one step under one policy.
type Decision string

// The outcome words of the spec.
const (
	Granted    Decision = "granted"
	Refused    Decision = "refused"
	Sent       Decision = "sent"
	Aborted    Decision = "aborted"
	Accepted   Decision = "accepted"
	Rejected   Decision = "rejected"
	Suppressed Decision = "suppressed"
	Dropped    Decision = "dropped"
	Checked    Decision = "checked"
	Applied    Decision = "applied"
	OK         Decision = "ok"
	Skipped    Decision = "skipped"
)

// Invariant names a safety property a policy may violate.
type Invariant string

// The six invariants of the spec, in the spec's order.
const (
	StaleOverwrite     Invariant = "stale-overwrite"
	SupersededWrite    Invariant = "superseded-write"
	DuplicateApplied   Invariant = "duplicate-applied"
	ValidWriteRejected Invariant = "valid-write-rejected"
	UnownedWrite       Invariant = "unowned-write"
	LostUpdate         Invariant = "lost-update"
)

// Invariants lists the invariants in the spec's order.
var invariants = [...]Invariant{StaleOverwrite, SupersededWrite, DuplicateApplied, ValidWriteRejected, UnownedWrite, LostUpdate}

// Invariants returns every invariant in the order traces show them. The
// slice is the caller's own.
func Invariants() []Invariant { return slices.Clone(invariants[:]) }

// numInvariants is len(Invariants()).
const numInvariants = len(invariants)

// Trace is the result of replaying a scenario under every policy.
type Trace struct {
	Policies []Policy           `json:"policies"`
	Steps    []Step             `json:"steps"`
	Summary  map[Policy]Summary `json:"summary"`
	Warnings []Warning          `json:"warnings"`
}

// Step is one event of the timeline with its outcome under each policy.
type Step struct {
	Index    int      `json:"index"`
	Event    Event    `json:"event"`
	Token    *int64   `json:"token"`
	Warning  string   `json:"warning"`
	Outcomes Outcomes `json:"outcomes"`
}

// Outcome is what one policy decided at one step, and the resources after it.
// Values and Tokens are shared between steps while they do not change, and
// the maps before any write with other traces of the same parsed scenario:
// treat them as read-only.
type Outcome struct {
	Decision Decision           `json:"decision"`
	Reason   string             `json:"reason"`
	Values   map[string]*string `json:"values"`
	Tokens   map[string]*int64  `json:"tokens"`
	// Versions (model 3) is each resource's version after the step: the
	// writes applied there so far. Only in a scenario with an rmw write.
	Versions map[string]int `json:"versions,omitempty"`
}

// Summary is a policy's verdict over the whole run.
type Summary struct {
	Final      map[string]*string `json:"final"`
	Violations []Violation        `json:"violations"`
}

// Violation is one invariant broken at one step, with how bad it is.
type Violation struct {
	Kind  Invariant `json:"kind"`
	Step  int       `json:"step"`
	Class Class     `json:"class"`
}

// Warning explains why a step was skipped.
type Warning struct {
	Step    int    `json:"step"`
	Message string `json:"message"`
}
