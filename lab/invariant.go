package lab

import "maps"

// apply writes request q's value at its receiver and records the invariants
// the write breaks. It is the one place a value changes.
func (l *lane) apply(r *replayer, q, i int) {
	rq := &r.requests[q]
	res := &l.res[rq.resource]
	l.touched = true
	if rq.hasToken && rq.scope >= 0 {
		if m := res.applied[rq.scope]; m.set && m.hi > rq.token {
			l.violate(StaleOverwrite, i)
		}
		if ls := &r.leases[rq.scope]; ls.granted && ls.maxGranted > rq.token {
			l.violate(SupersededWrite, i)
		}
	}
	if rq.opKey >= 0 {
		if res.ops[rq.opKey] != 0 {
			l.violate(DuplicateApplied, i)
		} else {
			res.ops[rq.opKey] = int32(i + 1)
		}
		if res.keys[rq.opKey] == 0 { // the receiver's own memory, apart with keys: memory
			res.keys[rq.opKey] = int32(i + 1)
		}
	}
	if !r.isCurrent(rq.actor, rq.scope) {
		l.violateAs(UnownedWrite, r.unownedClass(rq), i)
	}
	if rq.rmw && l.fresh[q].stale {
		l.violate(LostUpdate, i)
	}
	if rq.hasToken && rq.scope >= 0 {
		if m := &res.applied[rq.scope]; !m.set || rq.token > m.hi {
			m.set, m.hi = true, rq.token
		}
	}
	res.value, res.token = rq.value, nil
	if rq.hasToken {
		res.token = &rq.token
	}
	res.version++
	if l.seen != nil {
		l.landed(r, q)
	}
	if !r.quiet {
		l.snapshot(r, q, res)
	}
}

// landed marks, after request q was applied, every other actor and every
// other actor's rmw request still to be applied at the same resource as
// stale there (model 3).
func (l *lane) landed(r *replayer, q int) {
	rq := &r.requests[q]
	nr := len(r.pr.resources)
	for a := range r.pr.actors {
		v := &l.seen[a*nr+rq.resource]
		switch {
		case a == rq.actor:
			// The worker knows the version its own write produced, as a
			// client learns it from the answer to a conditional write.
			v.ver = int32(l.res[rq.resource].version)
		case !v.stale:
			v.stale, v.by = true, int32(rq.actor)
		}
	}
	for k := range r.requests {
		o := &r.requests[k]
		if k == q || !o.rmw || !o.sent || o.resource != rq.resource || o.actor == rq.actor {
			continue
		}
		if v := &l.fresh[k]; (!o.delivered || l.pending != nil && l.pending[k]) && !v.stale {
			v.stale, v.by = true, int32(rq.actor)
		}
	}
}

// unownedClass is the class of an unowned write: deposed when another
// actor is the current holder of the write's scope (even with the same
// token, after a duplicate grant), else overrun. A write with no scope is
// an overrun.
func (r *replayer) unownedClass(rq *request) Class {
	if rq.scope < 0 {
		return Overrun
	}
	if g, ok := r.leases[rq.scope].current(); ok && g.actor != rq.actor {
		return Deposed
	}
	return Overrun
}

// checkRejected records valid-write-rejected when a write refused at the
// receiver (or aborted by its worker) came from the scope's current holder
// with that lease's token. Model 2: a second actor carrying the same
// token, after a duplicate grant, is not the holder. Model 3: refusing a
// stale rmw write prevented a lost update; it is no violation.
func (l *lane) checkRejected(r *replayer, q, i int) {
	rq := &r.requests[q]
	if !rq.hasToken || rq.scope < 0 || rq.rmw && l.fresh[q].stale {
		return
	}
	if g, ok := r.leases[rq.scope].current(); ok && g.actor == rq.actor && g.token == rq.token {
		l.violate(ValidWriteRejected, i)
	}
}

// violate records an invariant broken at step i, once per step and kind,
// in the class the kind always has.
func (l *lane) violate(kind Invariant, i int) {
	l.violateAs(kind, classOf(kind), i)
}

func (l *lane) violateAs(kind Invariant, c Class, i int) {
	for _, v := range l.violations {
		if v.Step == i+1 && v.Kind == kind {
			return
		}
	}
	if cap(l.violations) == 0 {
		l.violations = make([]Violation, 0, 4) // room for a step's usual few at once
	}
	l.violations = append(l.violations, Violation{Kind: kind, Step: i + 1, Class: c})
}

// snapshot gives the lane new value maps after request q landed. Outcomes
// of earlier steps keep the old ones, so nothing is copied per step; lanes
// that apply the same request to the same snapshot share the new one.
func (l *lane) snapshot(r *replayer, q int, res *receiver) {
	for _, m := range r.memo[:r.nmemo] {
		if m.from == l.snap.id && m.request == q {
			l.snap = m.to
			return
		}
	}
	r.snaps++
	next := snapshot{values: maps.Clone(l.snap.values), tokens: maps.Clone(l.snap.tokens), id: r.snaps}
	name := r.pr.resources[r.requests[q].resource]
	next.values[name], next.tokens[name] = res.value, res.token
	if l.snap.versions != nil {
		next.versions = maps.Clone(l.snap.versions)
		next.versions[name] = res.version
	}
	if r.nmemo < len(r.memo) {
		r.memo[r.nmemo] = snapMemo{from: l.snap.id, to: next, request: q}
		r.nmemo++
	}
	l.snap = next
}
