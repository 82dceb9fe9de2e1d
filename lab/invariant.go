package lab

// apply writes request q's value at its receiver and records the invariants
// the write breaks. It is the one place a value changes.
func (l *lane) apply(r *replayer, q, i int) {
	rq := &r.requests[q]
	res := &l.res[rq.resource]
	if rq.hasToken && rq.scope >= 0 {
		if hi, ok := res.applied[rq.scope]; ok && hi > rq.token {
			l.violate(StaleOverwrite, i)
		}
		if ls := r.leases[rq.scope]; ls.granted && ls.maxGranted > rq.token {
			l.violate(SupersededWrite, i)
		}
	}
	if rq.key != "" {
		if _, ok := res.ops[rq.key]; ok {
			l.violate(DuplicateApplied, i)
		} else {
			if res.ops == nil {
				res.ops = map[string]int{}
			}
			res.ops[rq.key] = i
		}
	}
	if !r.holds(rq.actor, rq.scope) {
		l.violate(UnownedWrite, i)
	}
	if rq.hasToken && rq.scope >= 0 {
		if hi, ok := res.applied[rq.scope]; !ok || rq.token > hi {
			if res.applied == nil {
				res.applied = map[int]int64{}
			}
			res.applied[rq.scope] = rq.token
		}
	}
	res.value = rq.value
	res.token = tokenOf(rq)
	l.snapshot(r.pr.resources[rq.resource], res)
}

// checkRejected records valid-write-rejected when a write refused at the
// receiver (or aborted by its worker) carried the scope's current valid token.
func (l *lane) checkRejected(r *replayer, q, i int) {
	rq := &r.requests[q]
	if !rq.hasToken || rq.scope < 0 {
		return
	}
	if ls := r.leases[rq.scope]; ls.valid && ls.token == rq.token {
		l.violate(ValidWriteRejected, i)
	}
}

// violate records an invariant broken at step i, once per step and kind.
func (l *lane) violate(kind Invariant, i int) {
	for _, v := range l.violations {
		if v.Step == i+1 && v.Kind == kind {
			return
		}
	}
	l.violations = append(l.violations, Violation{Kind: kind, Step: i + 1})
}

// snapshot replaces the lane's value maps after a write. Outcomes of earlier
// steps keep the old maps, so nothing is copied per step.
func (l *lane) snapshot(name string, res *receiver) {
	values := make(map[string]*string, len(l.values))
	tokens := make(map[string]*int64, len(l.tokens))
	for k, v := range l.values {
		values[k] = v
	}
	for k, v := range l.tokens {
		tokens[k] = v
	}
	values[name], tokens[name] = res.value, res.token
	l.values, l.tokens = values, tokens
}
