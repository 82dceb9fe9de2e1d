package lab

import "slices"

// rules is what sets a policy apart: every decision that differs between
// policies reads it from here, so a policy's behaviour is one row of
// policyRules. Adding a policy is a row here, its constant and the places
// CONTRIBUTING.md lists; a rule no row has yet is code in lane.go.
type rules struct {
	// check is what the resource checks on a write.
	check receiverCheck
	// workerChecks: the worker asks whether its lease is valid before
	// sending and aborts the send when it is not (client-check).
	workerChecks bool
	// strict: an equal token is rejected too.
	strict bool
	// idempotent: a write whose op key was already applied is suppressed.
	idempotent bool
	// registers: a grant registers its token at every fencing resource.
	registers bool
	// commitsLater: a checked request is written only at its commit, when
	// one follows (the racy receiver).
	commitsLater bool
}

// receiverCheck is what a resource that takes tokens checks on a write.
type receiverCheck int

const (
	checkNothing      receiverCheck = iota // applies whatever arrives
	checkToken                             // the fenced family: the token against the highest it remembers
	checkLeaseService                      // asks the lease service whether the token is the current lease
	checkVersion                           // cas: an rmw write only if nothing landed since its writer read
)

// policyRules is every policy, in the spec's order (traces use it), with
// its rules.
var policyRules = [...]struct {
	policy Policy
	rules
}{
	{Unfenced, rules{}},
	{ClientCheck, rules{workerChecks: true}},
	{Fenced, rules{check: checkToken}},
	{FencedStrict, rules{check: checkToken, strict: true}},
	{FencedIdempotent, rules{check: checkToken, idempotent: true}},
	{FencedRegister, rules{check: checkToken, registers: true}},
	{Authoritative, rules{check: checkLeaseService}},
	{FencedRacy, rules{check: checkToken, commitsLater: true}},
	{CAS, rules{check: checkVersion}},
}

// numPolicies is len(Policies()).
const numPolicies = len(policyRules)

// policies lists every policy in the spec's order.
var policies = func() (ps [numPolicies]Policy) {
	for i, row := range policyRules {
		ps[i] = row.policy
	}
	return ps
}()

// Policies returns every policy in the order traces and pages show them.
// The slice is the caller's own.
func Policies() []Policy { return slices.Clone(policies[:]) }
