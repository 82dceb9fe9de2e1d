package lab

func (r *replayer) acquire(i int, e op) {
	l := &r.leases[e.scope]
	name, scope := r.actor(e), r.pr.scopes[e.scope]
	if l.valid {
		who, holds := r.pr.actors[l.holder], " holds it"
		if l.holder == e.actor {
			who, holds = name, " already holds it"
		}
		r.all(i, Refused, r.say("refused: ", scope, " is taken, ", who, holds, " with token ", r.itoa(l.token)))
		return
	}
	t := l.next
	if e.token != nil {
		t = *e.token
	}
	l.next = t + 1
	l.holder, l.token, l.valid, l.ended = e.actor, t, true, ""
	if !l.granted || t > l.maxGranted {
		l.maxGranted = t
	}
	l.granted = true
	w := &r.workers[e.actor]
	w.hasGrant, w.scope, w.token, w.answer = true, e.scope, t, 0
	reason := ""
	if !r.quiet {
		r.steps[i].Token = r.token(i, t)
		reason = r.say(name, " holds ", scope, " with token ", r.itoa(t))
	}
	for li := range r.lanes {
		if r.lanes[li].registers {
			r.set(i, li, Granted, r.lanes[li].register(r, t, reason))
			continue
		}
		r.set(i, li, Granted, reason)
	}
}

// end is an expire or a release of a lease the actor validly holds.
func (r *replayer) end(i int, e op) {
	l := &r.leases[e.scope]
	l.valid = false
	if e.kind == Expire {
		l.ended = "expired"
		r.all(i, OK, r.say(r.actor(e), "'s lease on ", r.pr.scopes[e.scope], " (token ", r.itoa(l.token), ") expires at the lease service"))
		return
	}
	l.ended = "was released"
	r.all(i, OK, r.say(r.actor(e), " releases ", r.pr.scopes[e.scope], " (token ", r.itoa(l.token), ")"))
}

func (r *replayer) renew(i int, e op) {
	w := &r.workers[e.actor]
	w.answerStep = i + 1
	scope := r.pr.scopes[e.scope]
	if r.holds(e.actor, e.scope) {
		w.answer, w.answerWhy = 1, r.say("its renewal at step ", r.itoa(int64(i+1)), " succeeded")
		r.all(i, Granted, r.say(r.actor(e), " renews its lease on ", scope, " (token ", r.itoa(r.leases[e.scope].token), ")"))
		return
	}
	w.answer, w.answerWhy = -1, r.say("its renewal at step ", r.itoa(int64(i+1)), " was refused")
	if r.quiet {
		r.all(i, Refused, "")
		return
	}
	if l := r.leases[e.scope]; l.holder == e.actor {
		r.all(i, Refused, r.say("refused: ", r.actor(e), "'s lease on ", scope, " (token ", r.itoa(l.token), ") ", l.ended))
		return
	}
	r.all(i, Refused, r.say("refused: ", r.actor(e), " does not hold ", scope))
}

func (r *replayer) check(i int, e op) {
	w := &r.workers[e.actor]
	ok, why := r.leaseState(e.actor)
	w.answer, w.answerStep = -1, i+1
	w.answerWhy = r.say("its check at step ", r.itoa(int64(i+1)), " said: ", why)
	if ok {
		w.answer = 1
	}
	r.all(i, OK, r.say(r.actor(e), " checks: ", why))
}

// leaseState asks the lease service about the actor's latest grant: is it
// valid, and why (no reason when the replay is quiet).
func (r *replayer) leaseState(actor int) (bool, string) {
	w := r.workers[actor]
	name := r.pr.actors[actor]
	if !w.hasGrant {
		return false, r.say(name, " holds no lease")
	}
	l := r.leases[w.scope]
	mine := l.holder == actor && l.token == w.token
	if r.quiet {
		return l.valid && mine, ""
	}
	scope, t := r.pr.scopes[w.scope], r.itoa(w.token)
	switch {
	case l.valid && mine:
		return true, r.say(name, "'s lease on ", scope, " (token ", t, ") is valid")
	case mine:
		return false, r.say(name, "'s lease on ", scope, " (token ", t, ") ", l.ended)
	case l.valid:
		return false, r.say(name, "'s lease on ", scope, " (token ", t, ") ended; ", r.pr.actors[l.holder], " holds token ", r.itoa(l.token))
	}
	return false, r.say(name, "'s lease on ", scope, " (token ", t, ") ended")
}

func ptr[T any](v T) *T { return &v }
