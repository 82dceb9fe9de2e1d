package lab

// lane is one policy's own copy of what the policies disagree on: the
// receivers, and which requests were aborted or are waiting for a commit.
type lane struct {
	policy Policy
	rules
	res     []receiver
	aborted []bool // client-check: sends the worker aborted
	pending []bool // fenced-racy: requests checked at deliver, applied at a commit
	// seen is, per actor and resource (actor*len(resources)+resource),
	// what the actor last read there and whether another actor's write
	// landed since; fresh is the same for each request, from its send
	// until it is applied (model 3). Both nil unless the scenario has an
	// rmw write.
	seen, fresh []view
	snap        snapshot
	violations  []Violation
	// touched is set by every change to the state an exploration's key
	// holds of the lane (receivers, aborted, pending); the explorer clears
	// it before a step, and re-encodes only the lanes a step touched.
	touched bool
}

// receiver is a protected resource as one policy sees it. The applied
// history (ops, highest token per scope) is the observer's record for the
// invariants; rems and keys are what the receiver itself remembers.
type receiver struct {
	value   *string
	token   *int64
	version int       // writes applied so far (model 3): shown, never decided on
	rems    []remSlot // the token remembered: one, or one per scope (model 3)
	ops     []int32   // per op key (program.opKeys), the step it was first applied at, 1-based; 0: not yet
	keys    []int32   // the op keys the receiver remembers, as ops; ops itself unless keys: memory
	applied []mark    // per scope: the highest token applied
}

// remSlot is a token a receiver remembers, with how it learnt it.
type remSlot struct {
	has bool
	t   int64
	how string
}

// view is what an actor (or a request) knows of a resource: whether a
// write by another actor landed since its latest read (stale), whose
// write that was, and the version it knows (read, or produced by its own
// write). Only stale is decided on.
type view struct {
	stale, read bool
	by          int32
	ver         int32
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
	values   map[string]*string
	tokens   map[string]*int64
	versions map[string]int
	id       int
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
	if pr.hasRMW {
		l.seen, l.fresh = make([]view, len(pr.actors)*len(pr.resources)), make([]view, n)
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
	keys, slots := 0, 0
	for ri, ks := range pr.opKeys {
		keys += len(ks)
		if pr.keysMemory[ri] {
			keys += len(ks)
		}
		slots += pr.slots(ri)
	}
	ops := make([]int32, numPolicies*keys)
	rems := make([]remSlot, numPolicies*slots)
	for i := range all {
		ri := i % n
		all[i].applied = marks[i*k : (i+1)*k : (i+1)*k]
		nk, ns := len(pr.opKeys[ri]), pr.slots(ri)
		all[i].ops, ops = ops[:nk:nk], ops[nk:]
		all[i].keys = all[i].ops
		if pr.keysMemory[ri] {
			all[i].keys, ops = ops[:nk:nk], ops[nk:]
		}
		all[i].rems, rems = rems[:ns:ns], rems[ns:]
	}
	for i := range lanes {
		lanes[i] = all[i*n : (i+1)*n : (i+1)*n]
	}
	return lanes
}

// slots is how many tokens resource ri remembers: one per scope at a
// per-scope receiver (model 3), else one.
func (pr *program) slots(ri int) int {
	if pr.perScope[ri] {
		return len(pr.scopes)
	}
	return 1
}

// slot is the place of the token a write of scope remembers at resource
// ri, or -1 for a write of no scope at a per-scope receiver.
func (pr *program) slot(ri, scope int) int {
	if pr.perScope[ri] {
		return scope
	}
	return 0
}

// usesTokens reports whether the receiver keeps a token under this policy.
func (l *lane) usesTokens() bool { return l.check == checkToken }

// decide delivers request q at its resource under this lane's policy.
func (l *lane) decide(r *replayer, q, i int) (Decision, string) {
	rq := &r.requests[q]
	name := r.pr.resources[rq.resource]
	switch {
	case l.check == checkVersion && !r.pr.fencing[rq.resource]:
		l.apply(r, q, i)
		return Accepted, r.say("accepted: ", name, " takes no condition, so nothing is checked")
	case l.check != checkNothing && !r.pr.fencing[rq.resource]:
		l.apply(r, q, i)
		return Accepted, r.say("accepted: ", name, " takes no token, so nothing is checked")
	case l.check == checkLeaseService:
		return l.authoritative(r, q, i)
	case l.check == checkToken:
		return l.fenced(r, q, i)
	case l.check == checkVersion:
		return l.conditional(r, q, i)
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
		if at := res.keys[rq.opKey]; at != 0 {
			return Suppressed, r.say("suppressed: op ", rq.key, " was already applied at step ", r.itoa(int64(at)))
		}
	}
	if !rq.hasToken {
		l.checkRejected(r, q, i)
		return Rejected, "rejected: the write carries no token"
	}
	k := r.pr.slot(rq.resource, rq.scope)
	if k < 0 {
		l.checkRejected(r, q, i)
		return Rejected, r.say("rejected: ", r.pr.resources[rq.resource], " keeps a token per scope, and the write belongs to no scope")
	}
	rem := &res.rems[k]
	t, rt, per := r.itoa(rq.token), r.itoa(rem.t), ""
	if r.pr.perScope[rq.resource] && !r.quiet {
		per = r.say(" for ", r.pr.scopes[rq.scope])
	}
	switch {
	case rem.has && l.strict && rq.token <= rem.t:
		l.checkRejected(r, q, i)
		return Rejected, r.cat("rejected: ", t, " is not greater than ", rt, " ", rem.how, per)
	case rem.has && rq.token < rem.t:
		l.checkRejected(r, q, i)
		return Rejected, r.cat("rejected: ", t, " < ", rt, " ", rem.how, per)
	}
	// With nothing remembered (no write yet, or forgotten at a restart),
	// say so, rather than that t is the first token the receiver sees.
	why := [6]string{r.pr.resources[rq.resource], " remembers no token", per, " to compare ", t, " with"}
	if rem.has {
		why = [6]string{t, " >= ", rt, " ", rem.how, per}
		if l.strict {
			why[1] = " > "
		}
	}
	if l.commitsLater && r.commitFollows(q, i) {
		l.pending[q], l.touched = true, true
		return Checked, r.say("checked: ", why[0], why[1], why[2], why[3], why[4], why[5], "; written only at its commit")
	}
	l.apply(r, q, i)
	l.remember(rq.resource, k, rq.token, "already accepted", false)
	return Accepted, r.cat("accepted: ", why[0], why[1], why[2], why[3], why[4], why[5])
}

// authoritative asks the lease service, atomically with the write, whether
// the token is a valid lease's of the write's scope: in a split brain,
// either side's (model 3).
func (l *lane) authoritative(r *replayer, q, i int) (Decision, string) {
	rq := &r.requests[q]
	switch {
	case !rq.hasToken:
		l.checkRejected(r, q, i)
		return Rejected, "rejected: the write carries no token"
	case rq.scope < 0:
		return Rejected, "rejected: the write belongs to no scope"
	}
	ls := &r.leases[rq.scope]
	scope, t := r.pr.scopes[rq.scope], r.itoa(rq.token)
	cur, held := ls.current()
	for _, g := range ls.held() {
		if g.token != rq.token {
			continue
		}
		l.apply(r, q, i)
		if g == cur {
			return Accepted, r.say("accepted: ", t, " is the current valid lease on ", scope)
		}
		return Accepted, r.say("accepted: ", t, " is a valid lease on ", scope, "; ",
			r.pr.actors[cur.actor], "'s ", r.itoa(cur.token), " is valid too: split brain")
	}
	l.checkRejected(r, q, i)
	switch {
	case held:
		return Rejected, r.say("rejected: ", t, " is not the current lease on ", scope, "; ",
			r.pr.actors[cur.actor], " holds ", r.itoa(cur.token))
	case ls.granted:
		return Rejected, r.say("rejected: no valid lease on ", scope, "; the latest, ", r.itoa(ls.token), ", ", ls.ended)
	}
	return Rejected, r.say("rejected: no lease on ", scope, " was ever granted")
}

// conditional is cas (model 3): a write without rmw states no condition
// and is applied; an rmw write is applied only if no other actor's write
// landed since its writer read the resource.
func (l *lane) conditional(r *replayer, q, i int) (Decision, string) {
	rq := &r.requests[q]
	if !rq.rmw {
		l.apply(r, q, i)
		return Accepted, "accepted: the write states no condition"
	}
	f := l.fresh[q]
	if f.stale {
		l.checkRejected(r, q, i)
	} else {
		l.apply(r, q, i)
	}
	if r.quiet {
		if f.stale {
			return Rejected, ""
		}
		return Accepted, ""
	}
	name, who := r.pr.resources[rq.resource], r.pr.actors[rq.actor]
	now := r.itoa(int64(l.res[rq.resource].version))
	if f.stale {
		by := r.pr.actors[f.by]
		if !f.read {
			return Rejected, r.say("rejected: ", by, "'s write landed at ", name, ", which ", who, " never read (now version ", now, ")")
		}
		return Rejected, r.say("rejected: ", by, "'s write landed after ", who, " read ", name,
			" (version ", r.itoa(int64(f.ver)), ", now ", now, ")")
	}
	if !f.read {
		return Accepted, r.say("accepted: no other write landed at ", name, " since the start (version ", now, ")")
	}
	return Accepted, r.say("accepted: no other write landed since ", who, " read ", name,
		" (version ", r.itoa(int64(f.ver)), ", now ", now, ")")
}

// remember sets the token the receiver remembers in slot k, with how it
// learnt it; only when higher if raise is set (a registration).
func (l *lane) remember(resource, k int, t int64, how string, raise bool) {
	s := &l.res[resource].rems[k]
	if raise && s.has && t <= s.t {
		return
	}
	s.has, s.t, s.how = true, t, how
	l.touched = true
}

// register is fenced-register's grant: the new token is registered at each
// fencing receiver, which from then on remembers at least that token (at a
// per-scope receiver, for the granted scope only). It returns the grant's
// reason with the receivers named ("" when the replay is quiet).
func (l *lane) register(r *replayer, scope int, t int64, reason string) string {
	var arr [2 + 2*MaxResources]string
	parts := append(arr[:0], reason, "; registered at ")
	for ri := range l.res {
		if !r.pr.fencing[ri] {
			continue
		}
		l.remember(ri, r.pr.slot(ri, scope), t, "registered at a grant", true)
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
		return append(parts, "empty") // the one word for no value, as the pages and pictures say it
	case res.token == nil:
		return append(parts, *res.value, " (no token)")
	}
	return append(parts, *res.value, " (token ", r.itoa(*res.token), ")")
}
