package lab

// lane is one policy's own copy of what the policies disagree on: the
// receivers, and which requests were aborted or are waiting for a commit.
type lane struct {
	policy Policy
	rules
	res        []receiver
	aborted    []bool // client-check: sends the worker aborted
	pending    []bool // fenced-racy: requests checked at deliver, applied at a commit
	snap       snapshot
	violations []Violation
	// touched is set by every change to the state an exploration's key
	// holds of the lane (receivers, aborted, pending); the explorer clears
	// it before a step, and re-encodes only the lanes a step touched.
	touched bool
}

// receiver is a protected resource as one policy sees it. The applied
// history (ops, highest token per scope) is the observer's record for the
// invariants; rem is what the receiver itself remembers.
type receiver struct {
	value   *string
	token   *int64
	hasRem  bool
	rem     int64
	remHow  string
	ops     []int32 // per op key (program.opKeys), the step it was first applied at, 1-based; 0: not yet
	applied []mark  // per scope: the highest token applied
}

// mark is a token seen, or not yet.
type mark struct {
	set bool
	hi  int64
}

// snapshot is every resource's value and the token that wrote it, as the
// outcomes show them. A snapshot is never modified once outcomes refer to
// it; id tells snapshots apart (0 is the first, with nothing written).
type snapshot struct {
	values map[string]*string
	tokens map[string]*int64
	id     int
}

// init sets up l, which must be zero, as the lane of policyRules[p]. Its
// sets of sends come off the front of flags, which has room for every lane's.
func (l *lane) init(p int, pr *program, res []receiver, snap snapshot, flags *[]bool) {
	l.policy, l.rules, l.res, l.snap, l.violations = policyRules[p].policy, policyRules[p].rules, res, snap, []Violation{}
	n := pr.requests
	take := func() []bool {
		s := (*flags)[:n:n]
		*flags = (*flags)[n:]
		return s
	}
	if l.workerChecks {
		l.aborted = take()
	}
	if l.commitsLater {
		l.pending = take()
	}
}

// laneFlags allocates the sets of sends of every lane at once.
func laneFlags(pr *program) []bool {
	n := 0
	for _, row := range policyRules {
		if row.workerChecks {
			n++
		}
		if row.commitsLater {
			n++
		}
	}
	return make([]bool, n*pr.requests)
}

// newReceivers allocates every lane's receivers, and their marks, at once.
func newReceivers(pr *program) (lanes [numPolicies][]receiver) {
	n, k := len(pr.resources), len(pr.scopes)
	all := make([]receiver, numPolicies*n)
	marks := make([]mark, numPolicies*n*k)
	keys := 0
	for _, ks := range pr.opKeys {
		keys += len(ks)
	}
	ops := make([]int32, numPolicies*keys)
	for i := range all {
		all[i].applied = marks[i*k : (i+1)*k : (i+1)*k]
		nk := len(pr.opKeys[i%n])
		all[i].ops, ops = ops[:nk:nk], ops[nk:]
	}
	for i := range lanes {
		lanes[i] = all[i*n : (i+1)*n : (i+1)*n]
	}
	return lanes
}

// usesTokens reports whether the receiver keeps a token under this policy.
func (l *lane) usesTokens() bool { return l.check == checkToken }

// decide delivers request q at its resource under this lane's policy.
func (l *lane) decide(r *replayer, q, i int) (Decision, string) {
	rq := &r.requests[q]
	name := r.pr.resources[rq.resource]
	switch {
	case l.check != checkNothing && !r.pr.fencing[rq.resource]:
		l.apply(r, q, i)
		return Accepted, r.say("accepted: ", name, " takes no token, so nothing is checked")
	case l.check == checkLeaseService:
		return l.authoritative(r, q, i)
	case l.check == checkToken:
		return l.fenced(r, q, i)
	case l.workerChecks:
		l.apply(r, q, i)
		return Accepted, r.say("accepted: the worker checked; ", name, " does not")
	}
	l.apply(r, q, i)
	return Accepted, "accepted: nothing checks the token"
}

// fenced is the atomic check of the fenced family at the receiver.
func (l *lane) fenced(r *replayer, q, i int) (Decision, string) {
	rq := &r.requests[q]
	res := &l.res[rq.resource]
	if l.idempotent && rq.opKey >= 0 {
		if at := res.ops[rq.opKey]; at != 0 {
			return Suppressed, r.say("suppressed: op ", rq.key, " was already applied at step ", r.itoa(int64(at)))
		}
	}
	if !rq.hasToken {
		l.checkRejected(r, q, i)
		return Rejected, "rejected: the write carries no token"
	}
	t, rem := r.itoa(rq.token), r.itoa(res.rem)
	switch {
	case res.hasRem && l.strict && rq.token <= res.rem:
		l.checkRejected(r, q, i)
		return Rejected, r.cat("rejected: ", t, " is not greater than ", rem, " ", res.remHow, "")
	case res.hasRem && rq.token < res.rem:
		l.checkRejected(r, q, i)
		return Rejected, r.cat("rejected: ", t, " < ", rem, " ", res.remHow, "")
	}
	// With nothing remembered (no write yet, or forgotten at a restart),
	// say so, rather than that t is the first token the receiver sees.
	why := [5]string{r.pr.resources[rq.resource], " remembers no token to compare ", t, " with", ""}
	if res.hasRem {
		why = [5]string{t, " >= ", rem, " ", res.remHow}
		if l.strict {
			why[1] = " > "
		}
	}
	if l.commitsLater && r.commitFollows(q, i) {
		l.pending[q], l.touched = true, true
		return Checked, r.cat("checked: ", why[0], why[1], why[2], why[3], why[4], "; written only at its commit")
	}
	l.apply(r, q, i)
	l.remember(rq.resource, rq.token, "already accepted")
	return Accepted, r.cat("accepted: ", why[0], why[1], why[2], why[3], why[4], "")
}

// authoritative asks the lease service, atomically with the write, whether
// the token is the scope's current valid lease.
func (l *lane) authoritative(r *replayer, q, i int) (Decision, string) {
	rq := &r.requests[q]
	switch {
	case !rq.hasToken:
		l.checkRejected(r, q, i)
		return Rejected, "rejected: the write carries no token"
	case rq.scope < 0:
		return Rejected, "rejected: the write belongs to no scope"
	}
	ls := r.leases[rq.scope]
	scope, t, cur := r.pr.scopes[rq.scope], r.itoa(rq.token), r.itoa(ls.token)
	switch {
	case ls.valid && ls.token == rq.token:
		l.apply(r, q, i)
		return Accepted, r.say("accepted: ", t, " is the current valid lease on ", scope)
	case ls.valid:
		return Rejected, r.say("rejected: ", t, " is not the current lease on ", scope, "; ", r.pr.actors[ls.holder], " holds ", cur)
	case ls.granted:
		return Rejected, r.say("rejected: no valid lease on ", scope, "; the latest, ", cur, ", ", ls.ended)
	}
	return Rejected, r.say("rejected: no lease on ", scope, " was ever granted")
}

// remember sets the token the receiver remembers, with how it learnt it.
func (l *lane) remember(resource int, t int64, how string) {
	res := &l.res[resource]
	res.hasRem, res.rem, res.remHow = true, t, how
	l.touched = true
}

// register is fenced-register's grant: the new token is registered at each
// fencing receiver, which from then on remembers at least that token. It
// returns the grant's reason with the receivers named ("" when the replay
// is quiet).
func (l *lane) register(r *replayer, t int64, reason string) string {
	var arr [2 + 2*MaxResources]string
	parts := append(arr[:0], reason, "; registered at ")
	for ri := range l.res {
		res := &l.res[ri]
		if !r.pr.fencing[ri] {
			continue
		}
		if !res.hasRem || t > res.rem {
			res.hasRem, res.rem, res.remHow = true, t, "registered at a grant"
			l.touched = true
		}
		if r.quiet {
			continue
		}
		if len(parts) > 2 {
			parts = append(parts, ", ")
		}
		parts = append(parts, r.pr.resources[ri])
	}
	if len(parts) == 2 {
		return reason
	}
	return r.say(parts...)
}

// describe appends a receiver's value with the token that wrote it.
func (l *lane) describe(r *replayer, parts []string, ri int) []string {
	res := l.res[ri]
	switch {
	case res.value == nil:
		return append(parts, "(nothing written yet)")
	case res.token == nil:
		return append(parts, *res.value, " (no token)")
	}
	return append(parts, *res.value, " (token ", r.itoa(*res.token), ")")
}
