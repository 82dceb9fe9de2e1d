package lab

import (
	"slices"
	"strings"
)

// rules is what sets a policy apart: every decision that differs between
// policies reads it from here, so a policy's behaviour is one row of
// policyRules. Code outside this file asks a policy's facets (the methods
// below), never its name. Adding a policy is a row here, its constant and
// the places CONTRIBUTING.md lists; a rule no row has yet is code in
// lane.go, and a facet here that says whether a real receiver could
// implement it (ClaimableByReceiver).
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
	// byDefault: pages compare it when the reader chose no policy.
	byDefault bool
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
	{Unfenced, rules{byDefault: true}},
	{ClientCheck, rules{workerChecks: true}},
	{Fenced, rules{check: checkToken, byDefault: true}},
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

// DefaultPolicies returns the policies pages compare when the reader chose
// none, in the order of Policies. The slice is the caller's own.
func DefaultPolicies() []Policy {
	var out []Policy
	for _, row := range policyRules {
		if row.byDefault {
			out = append(out, row.policy)
		}
	}
	return out
}

// rulesOf is p's row, and whether p is a policy at all: an unknown
// policy has no rules, so every facet of it is false.
func (p Policy) rulesOf() (rules, bool) {
	for _, row := range policyRules {
		if row.policy == p {
			return row.rules, true
		}
	}
	return rules{}, false
}

// row is p's rules, none for an unknown policy.
func (p Policy) row() rules {
	r, _ := p.rulesOf()
	return r
}

// Default reports whether pages compare p when the reader chose no policy.
func (p Policy) Default() bool { return p.row().byDefault }

// ChecksToken reports whether a fencing resource under p checks a write's
// token against the highest it remembers (the fenced family).
func (p Policy) ChecksToken() bool { return p.row().check == checkToken }

// AsksLeaseService reports whether a fencing resource under p asks the
// lease service whether a write's token is the current lease.
func (p Policy) AsksLeaseService() bool { return p.row().check == checkLeaseService }

// ChecksVersion reports whether a resource under p applies an rmw write
// only when nothing landed since its writer read (a conditional write,
// cas); a write that is not rmw states no condition.
func (p Policy) ChecksVersion() bool { return p.row().check == checkVersion }

// ChecksAtClient reports whether the worker under p asks whether its lease
// is valid before sending, and aborts the send when it is not.
func (p Policy) ChecksAtClient() bool { return p.row().workerChecks }

// Strict reports whether a token equal to the highest remembered is
// rejected too under p.
func (p Policy) Strict() bool { return p.row().strict }

// Idempotent reports whether a write whose op key was already applied is
// suppressed under p, so a retry carries an op key.
func (p Policy) Idempotent() bool { return p.row().idempotent }

// Registers reports whether a grant under p registers its token at every
// fencing resource at once, so a receiver takes grants as well as writes.
func (p Policy) Registers() bool { return p.row().registers }

// CommitsLater reports whether a checked request is written only at its
// commit under p: check and write apart, the model of a racy receiver.
func (p Policy) CommitsLater() bool { return p.row().commitsLater }

// ClaimableByReceiver reports whether a real receiver could claim p: one
// that decides alone (no check at the worker, no question to the lease
// service) and at once (no commit later), so that `fencelab probe` can
// check it against the model. A new kind of rule must say here whether a
// receiver can implement it.
func (p Policy) ClaimableByReceiver() bool {
	r, ok := p.rulesOf()
	return ok && r.check != checkLeaseService && !r.workerChecks && !r.commitsLater
}

// inertIn clears the rules that cannot change a decision, a violation or
// a lane's state in pr: idempotent without op keys (suppression needs a
// key applied before), commitsLater without commits (a request is held
// back only when a commit follows it), and cas's check without rmw writes
// (a write that is not rmw states no condition, and is applied as
// unfenced applies it, whatever else the rules say). byDefault is about
// pages, never decisions. Two policies whose rules are equal once cleared
// run the same code on every step of every ordering of pr.
func (r rules) inertIn(pr *program) rules {
	r.byDefault = false
	if !pr.hasOpKeys() {
		r.idempotent = false
	}
	if !pr.hasCommits() {
		r.commitsLater = false
	}
	if !pr.hasRMW && r.check == checkVersion {
		r.check = checkNothing
	}
	return r
}

// laneGroups says which policies decide alike in a program, so that an
// exploration runs one lane for each group. run lists the policy of each
// lane that runs (the first of its group, in the order of Policies), lane
// gives each policy the lane that decides for it.
type laneGroups struct {
	run  []int
	lane [numPolicies]int
}

// everyLane runs every policy in its own lane, as Replay does.
func everyLane() laneGroups { return laneOfEach }

// laneOfEach is everyLane's, made once: a replay allocates nothing for it.
var laneOfEach = func() laneGroups {
	var g laneGroups
	for p := range numPolicies {
		g.run, g.lane[p] = append(g.run, p), p
	}
	return g
}()

// groupsOf groups the policies whose rules are equal in pr (inertIn).
func groupsOf(pr *program) laneGroups {
	var g laneGroups
	var seen []rules
	for p, row := range policyRules {
		r := row.rules.inertIn(pr)
		j := slices.Index(seen, r)
		if j < 0 {
			j = len(g.run)
			g.run, seen = append(g.run, p), append(seen, r)
		}
		g.lane[p] = j
	}
	return g
}

// PolicyChoice names ps as a choice, for a message: "a, b or c".
func PolicyChoice(ps []Policy) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = string(p)
	}
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}
