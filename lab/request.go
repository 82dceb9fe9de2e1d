package lab

// send handles a write or a send: the worker builds the request, and under
// client-check first consults its lease. A write is then delivered at once.
func (r *replayer) send(i int, e op, built request) {
	q := &r.requests[e.request]
	*q = built
	passed, why := r.clientCheck(e.actor)
	for li := range r.lanes {
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

// buildRequest is the request a write or send carries: the scope and token
// of the actor's latest grant, unless the event names a token.
func (r *replayer) buildRequest(e op) request {
	w := r.workers[e.actor]
	q := request{sent: true, actor: e.actor, scope: -1, resource: e.resource, value: e.value, key: e.key, opKey: e.opKey}
	if w.hasGrant {
		q.scope = w.scope
	} else if len(r.pr.scopes) == 1 {
		q.scope = 0
	}
	switch {
	case e.token != nil:
		q.hasToken, q.token = true, *e.token
	case !e.tokenNull && w.hasGrant:
		q.hasToken, q.token = true, w.token
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
func (r *replayer) clientCheck(actor int) (bool, string) {
	w := r.workers[actor]
	if w.answer != 0 {
		return w.answer > 0, w.answerWhy
	}
	ok, why := r.leaseState(actor)
	return ok, r.say("checked before sending: ", why)
}

func (r *replayer) deliver(i int, e op) {
	q := &r.requests[e.request]
	q.delivered, q.deliveredAt = true, i
	for li := range r.lanes {
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
	for li := range r.lanes {
		l := &r.lanes[li]
		switch {
		case !l.commitsLater:
			r.set(i, li, OK, r.say("nothing to do: ", string(l.policy), " decided request ", id, " at its deliver"))
		case l.pending[e.request]:
			l.pending[e.request], l.touched = false, true
			l.apply(r, e.request, i)
			l.remember(q.resource, q.token, "applied at a commit")
			r.set(i, li, Applied, r.say("applied without checking again; ", r.pr.resources[q.resource], " now remembers ", r.itoa(q.token)))
		default:
			r.set(i, li, OK, r.say("nothing to commit: request ", id, " was decided at its deliver"))
		}
	}
}

func (r *replayer) restart(i int, e op) {
	name := r.pr.resources[e.resource]
	for li := range r.lanes {
		l := &r.lanes[li]
		res := &l.res[e.resource]
		switch {
		case !l.usesTokens() || !r.pr.fencing[e.resource] || !res.hasRem:
			r.set(i, li, OK, r.say(name, " restarts"))
		case r.pr.memory[e.resource]:
			res.hasRem, l.touched = false, true
			r.set(i, li, OK, r.say(name, " restarts and forgets token ", r.itoa(res.rem), ": it kept it in memory only"))
		default:
			r.set(i, li, OK, r.say(name, " restarts and still remembers token ", r.itoa(res.rem), " (durable)"))
		}
	}
}

func (r *replayer) read(i int, e op) {
	if r.quiet {
		r.all(i, OK, "")
		return
	}
	for li := range r.lanes {
		l := &r.lanes[li]
		if li > 0 && r.lanes[li-1].snap.id == l.snap.id {
			r.set(i, li, OK, r.steps[i].Outcomes[li-1].Reason)
			continue
		}
		var arr [2 + 8*MaxResources]string
		parts := append(arr[:0], r.actor(e), " reads")
		for ri, name := range r.pr.resources {
			if ri > 0 {
				parts = append(parts, ";")
			}
			parts = l.describe(r, append(parts, " ", name, " = "), ri)
		}
		r.set(i, li, OK, r.say(parts...))
	}
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
