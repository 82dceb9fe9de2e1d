package lab

// send handles a write or a send: the worker builds the request, and under
// client-check first consults its lease. A write is then delivered at once.
func (r *replayer) send(i int, e op, built request) {
	q := &r.requests[e.request]
	*q = built
	passed, why := r.clientCheck(e)
	if q.rmw {
		r.sendFresh(e.request)
	}
	for li := range r.lanes[:r.nl] {
		l := &r.lanes[li]
		switch {
		case l.workerChecks && !passed:
			l.aborted[e.request], l.touched = true, true
			l.checkRejected(r, e.request, i)
			r.set(i, li, Aborted, r.say("aborted: ", why))
		case e.kind == Send:
			r.set(i, li, Sent, r.say("sent: request ", r.pr.requestIDs[e.request], " is in flight", r.withToken(q)))
		default:
			d, reason := l.decide(r, e.request, i)
			if l.workerChecks && d == Accepted && r.pr.fencing[q.resource] {
				reason = r.say("accepted: ", why)
			}
			r.set(i, li, d, reason)
		}
	}
	if e.kind == Write {
		q.delivered, q.deliveredAt = true, i
	}
}

// sendFresh gives an rmw request what its actor knows of the resource as
// it leaves: stale if another actor's write landed since the actor's
// latest read (model 3).
func (r *replayer) sendFresh(q int) {
	rq := &r.requests[q]
	at := rq.actor*len(r.pr.resources) + rq.resource
	for li := range r.lanes[:r.nl] {
		l := &r.lanes[li]
		l.fresh[q], l.touched = l.seen[at], true
	}
}

// buildRequest is the request a write or send carries: its scope (the one
// it names, else its actor's latest grant's, else the only one) and the
// token of the actor's latest grant of that scope, unless the event names
// a token.
func (r *replayer) buildRequest(e op) request {
	w := &r.workers[e.actor]
	q := request{sent: true, actor: e.actor, scope: e.scope, resource: e.resource, value: e.value, key: e.key, opKey: e.opKey, rmw: e.rmw}
	switch {
	case q.scope >= 0:
	case w.hasGrant:
		q.scope = w.scope
	case len(r.pr.scopes) == 1:
		q.scope = 0
	}
	switch {
	case e.token != nil:
		q.hasToken, q.token = true, *e.token
	case !e.tokenNull && q.scope >= 0 && w.grants[q.scope].granted:
		q.hasToken, q.token = true, w.grants[q.scope].token
	}
	return q
}

// fillRequest completes the step's event with the defaults the replay
// chose: scope, token and, for a write, the id of its request.
func (r *replayer) fillRequest(i int, e op, q *request) {
	ev := &r.steps[i].Event
	if q.scope >= 0 {
		ev.Scope = r.pr.scopes[q.scope]
	}
	ev.Token, ev.TokenNull = nil, !q.hasToken
	if q.hasToken {
		ev.Token = r.token(i, q.token)
		r.steps[i].Token = ev.Token
	}
	if e.kind == Write {
		ev.ID = r.pr.requestIDs[e.request]
	}
}

// clientCheck is what the worker knows before sending: the answer of its
// latest check or renew since its latest grant, or else a check made now.
// A write that names its scope (model 3) goes by the latest answer about
// that scope since the actor's latest grant of it, or else checks that
// scope's lease now.
func (r *replayer) clientCheck(e op) (bool, string) {
	w := &r.workers[e.actor]
	if e.scope >= 0 {
		if g := &w.grants[e.scope]; g.answer != 0 {
			return g.answer > 0, g.answerWhy
		}
		ok, why := r.leaseState(e.actor, e.scope)
		return ok, r.say("checked before sending: ", why)
	}
	if w.answer != 0 {
		return w.answer > 0, w.answerWhy
	}
	scope := -1
	if w.hasGrant {
		scope = w.scope
	}
	ok, why := r.leaseState(e.actor, scope)
	return ok, r.say("checked before sending: ", why)
}

func (r *replayer) deliver(i int, e op) {
	q := &r.requests[e.request]
	q.delivered, q.deliveredAt = true, i
	for li := range r.lanes[:r.nl] {
		l := &r.lanes[li]
		if l.workerChecks && l.aborted[e.request] {
			r.set(i, li, Dropped, "dropped: the send was aborted, nothing was in flight")
			continue
		}
		d, reason := l.decide(r, e.request, i)
		r.set(i, li, d, reason)
	}
}

func (r *replayer) commit(i int, e op) {
	q := &r.requests[e.request]
	q.committed, q.committedAt = true, i
	id := r.pr.requestIDs[e.request]
	for li := range r.lanes[:r.nl] {
		l := &r.lanes[li]
		switch {
		case !l.commitsLater:
			r.set(i, li, OK, r.say("nothing to do: ", string(l.policy), " decided request ", id, " at its deliver"))
		case l.pending[e.request]:
			l.pending[e.request], l.touched = false, true
			l.apply(r, e.request, i)
			l.remember(q.resource, r.pr.slot(q.resource, q.scope), q.token, "applied at a commit", false)
			r.set(i, li, Applied, r.say("applied without checking again; ", r.pr.resources[q.resource],
				" now remembers ", l.remembered(r, q.resource)))
		default:
			r.set(i, li, OK, r.say("nothing to commit: request ", id, " was decided at its deliver"))
		}
	}
}

func (r *replayer) restart(i int, e op) {
	if e.scope >= 0 {
		r.restartScope(i, e)
		return
	}
	for li := range r.lanes[:r.nl] {
		l := &r.lanes[li]
		reason := l.restartTokens(r, e.resource)
		if keys := l.restartKeys(r, e.resource); keys != "" {
			reason = r.say(reason, "; ", keys)
		}
		r.set(i, li, OK, reason)
	}
}

// restartTokens is a restart of a receiver as far as its remembered
// tokens go: a memory receiver forgets them (every scope's, at a
// per-scope receiver).
func (l *lane) restartTokens(r *replayer, ri int) string {
	name, res := r.pr.resources[ri], &l.res[ri]
	if !l.usesTokens() || !r.pr.fencing[ri] || !res.remembers() {
		return r.say(name, " restarts")
	}
	held := l.remembered(r, ri)
	if !r.pr.memory[ri] && r.pr.perScope[ri] {
		return r.say(name, " restarts and still remembers its tokens (", held, "; durable)")
	}
	if !r.pr.memory[ri] {
		return r.say(name, " restarts and still remembers token ", held, " (durable)")
	}
	for k := range res.rems {
		res.rems[k].has = false
	}
	l.touched = true
	if r.pr.perScope[ri] {
		return r.say(name, " restarts and forgets its tokens (", held, "): it kept them in memory only")
	}
	return r.say(name, " restarts and forgets token ", held, ": it kept it in memory only")
}

// restartKeys is a restart of a receiver as far as its op keys go: a
// keys-memory receiver forgets them (model 3). Only fenced-idempotent
// reads them, so only its reason says so.
func (l *lane) restartKeys(r *replayer, ri int) string {
	res := &l.res[ri]
	if !r.pr.keysMemory[ri] {
		return ""
	}
	forgot := false
	for k := range res.keys {
		forgot = forgot || res.keys[k] != 0
		res.keys[k] = 0
	}
	l.touched = true
	if !forgot || !l.idempotent || !r.pr.fencing[ri] {
		return ""
	}
	return "it forgets the op keys it applied: it kept them in memory only"
}

// remembers reports whether the receiver remembers any token.
func (res *receiver) remembers() bool {
	for _, s := range res.rems {
		if s.has {
			return true
		}
	}
	return false
}

// remembered names the tokens receiver ri remembers: "42", or per scope
// "42 for orders, 7 for invoices".
func (l *lane) remembered(r *replayer, ri int) string {
	res := &l.res[ri]
	if !r.pr.perScope[ri] {
		return r.itoa(res.rems[0].t)
	}
	var parts []string
	for k, s := range res.rems {
		if !s.has {
			continue
		}
		if len(parts) > 0 {
			parts = append(parts, ", ")
		}
		parts = append(parts, r.itoa(s.t), " for ", r.pr.scopes[k])
	}
	return r.say(parts...)
}

// read is a worker reading one resource, or every one (model 3: what its
// next rmw writes there are computed from).
func (r *replayer) read(i int, e op) {
	if r.pr.hasRMW {
		r.readFresh(e)
	}
	if r.quiet {
		r.all(i, OK, "")
		return
	}
	for li := range r.lanes[:r.nl] {
		l := &r.lanes[li]
		if li > 0 && r.lanes[li-1].snap.id == l.snap.id {
			r.set(i, li, OK, r.steps[i].Outcomes[li-1].Reason)
			continue
		}
		r.set(i, li, OK, r.readReason(l, e))
	}
}

// readFresh makes the actor fresh at what it read, under every policy.
func (r *replayer) readFresh(e op) {
	nr := len(r.pr.resources)
	for li := range r.lanes[:r.nl] {
		l := &r.lanes[li]
		for ri := range r.pr.resources {
			if e.resource < 0 || ri == e.resource {
				l.seen[e.actor*nr+ri] = view{read: true, ver: int32(l.res[ri].version)}
			}
		}
		l.touched = true
	}
}

// readReason says what the actor read: each resource's value with the
// token that wrote it and, in rmw scenarios, its version.
func (r *replayer) readReason(l *lane, e op) string {
	var arr [2 + 10*MaxResources]string
	parts := append(arr[:0], r.actor(e), " reads")
	for ri, name := range r.pr.resources {
		if e.resource >= 0 && ri != e.resource {
			continue
		}
		if len(parts) > 2 {
			parts = append(parts, ";")
		}
		parts = l.describe(r, append(parts, " ", name, " = "), ri)
		if r.pr.hasRMW {
			parts = append(parts, ", version ", r.itoa(int64(l.res[ri].version)))
		}
	}
	return r.say(parts...)
}

func (r *replayer) withToken(q *request) string {
	switch {
	case r.quiet:
		return ""
	case !q.hasToken:
		return " without a token"
	}
	return r.say(" with token ", r.itoa(q.token))
}

// itoa is a token in words, or nothing when the replay is quiet.
func (r *replayer) itoa(t int64) string {
	if r.quiet {
		return ""
	}
	return r.text.int(t)
}
