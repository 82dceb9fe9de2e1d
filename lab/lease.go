package lab

// grant is one valid lease: the actor it was granted to and its token.
type grant struct {
	actor int
	token int64
}

// held is the scope's valid leases, in grant order.
func (l *lease) held() []grant { return l.room[:l.n] }

// add appends a valid lease. There is room: an actor holds at most one
// valid lease of a scope.
func (l *lease) add(g grant) {
	l.room[l.n] = g
	l.n++
}

// current is the scope's current holder (model 3): the latest-granted of
// its valid leases. ok is false when the scope has no valid lease.
func (l *lease) current() (g grant, ok bool) {
	if l.n == 0 {
		return grant{}, false
	}
	return l.room[l.n-1], true
}

// find is the place in held of the actor's valid lease, or -1. An actor
// holds at most one valid lease of a scope: its acquire is refused while
// it holds one, split or not.
func (l *lease) find(actor int) int {
	for k, g := range l.held() {
		if g.actor == actor {
			return k
		}
	}
	return -1
}

// latestValid reports whether the scope's latest grant is still valid.
func (l *lease) latestValid() bool { return l.holder >= 0 && l.find(l.holder) >= 0 }

func (r *replayer) acquire(i int, e op) {
	l := &r.leases[e.scope]
	name, scope := r.actor(e), r.pr.scopes[e.scope]
	if k := l.find(e.actor); k >= 0 {
		r.all(i, Refused, r.say("refused: ", scope, " is taken, ", name, " already holds it with token ", r.itoa(l.room[k].token)))
		return
	}
	if cur, ok := l.current(); ok && !e.split {
		r.all(i, Refused, r.say("refused: ", scope, " is taken, ", r.pr.actors[cur.actor], " holds it with token ", r.itoa(cur.token)))
		return
	}
	t := l.next
	if e.token != nil {
		t = *e.token
	}
	reason := ""
	if !r.quiet {
		r.steps[i].Token = r.token(i, t)
		reason = r.grantReason(e, l, t)
	}
	r.grant(e, t)
	for li := range r.lanes[:r.nl] {
		if r.lanes[li].registers {
			r.set(i, li, Granted, r.lanes[li].register(r, e.scope, t, reason))
			continue
		}
		r.set(i, li, Granted, reason)
	}
}

// grant gives the actor a lease of the event's scope with token t.
func (r *replayer) grant(e op, t int64) {
	l := &r.leases[e.scope]
	l.next = t + 1
	l.add(grant{e.actor, t})
	l.holder, l.token, l.ended = e.actor, t, ""
	if !l.granted || t > l.maxGranted {
		l.maxGranted = t
	}
	l.granted = true
	w := &r.workers[e.actor]
	w.hasGrant, w.scope, w.token, w.answer = true, e.scope, t, 0
	w.grants[e.scope] = scopeGrant{granted: true, token: t}
}

// grantReason says who holds the scope now, and, after a split grant, whose
// leases stay valid beside it: "B holds job with token 42; A's lease (41)
// is still valid: split brain".
func (r *replayer) grantReason(e op, l *lease, t int64) string {
	head := r.say(r.actor(e), " holds ", r.pr.scopes[e.scope], " with token ", r.itoa(t))
	if l.n == 0 {
		return head
	}
	parts := []string{head, "; "}
	for k, g := range l.held() {
		if k > 0 {
			parts = append(parts, ", ")
		}
		parts = append(parts, r.pr.actors[g.actor], "'s lease (", r.itoa(g.token), ")")
	}
	if l.n == 1 {
		return r.say(append(parts, " is still valid: split brain")...)
	}
	return r.say(append(parts, " are still valid: split brain")...)
}

// end is an expire or a release of a lease the actor validly holds.
func (r *replayer) end(i int, e op) {
	l := &r.leases[e.scope]
	k := l.find(e.actor)
	t := l.room[k].token
	copy(l.room[k:], l.room[k+1:l.n])
	l.n--
	latest := l.holder == e.actor && l.token == t
	if e.kind == Expire {
		if latest {
			l.ended = "expired"
		}
		r.all(i, OK, r.say(r.actor(e), "'s lease on ", r.pr.scopes[e.scope], " (token ", r.itoa(t), ") expires at the lease service"))
		return
	}
	if latest {
		l.ended = "was released"
	}
	r.all(i, OK, r.say(r.actor(e), " releases ", r.pr.scopes[e.scope], " (token ", r.itoa(t), ")"))
}

// restartScope is a restart of the lease service of a scope (model 3): a
// memory scope forgets its leases and its counter, a durable one nothing.
// The observer's record (the greatest token granted) is kept.
func (r *replayer) restartScope(i int, e op) {
	l := &r.leases[e.scope]
	scope := r.pr.scopes[e.scope]
	if !r.pr.scopeMemory[e.scope] {
		r.all(i, OK, r.say("the lease service of ", scope, " restarts and forgets nothing (durable)"))
		return
	}
	first := r.pr.firstToken[e.scope]
	reason := ""
	if !r.quiet {
		parts := []string{"the lease service of ", scope, " restarts and forgets "}
		for _, g := range l.held() {
			parts = append(parts, r.pr.actors[g.actor], "'s lease (", r.itoa(g.token), ") and ")
		}
		reason = r.say(append(parts, "its counter, kept in memory only: the next grant gets ", r.itoa(first))...)
	}
	if l.latestValid() {
		l.ended = "was forgotten when the lease service restarted"
	}
	l.n, l.next = 0, first
	r.all(i, OK, reason)
}

func (r *replayer) renew(i int, e op) {
	w := &r.workers[e.actor]
	w.answerStep = i + 1
	scope := r.pr.scopes[e.scope]
	l := &r.leases[e.scope]
	if k := l.find(e.actor); k >= 0 {
		w.answer, w.answerWhy = 1, r.say("its renewal at step ", r.itoa(int64(i+1)), " succeeded")
		w.remember(e.scope, w.answer, w.answerWhy)
		r.all(i, Granted, r.say(r.actor(e), " renews its lease on ", scope, " (token ", r.itoa(l.room[k].token), ")"))
		return
	}
	w.answer, w.answerWhy = -1, r.say("its renewal at step ", r.itoa(int64(i+1)), " was refused")
	w.remember(e.scope, w.answer, w.answerWhy)
	if r.quiet {
		r.all(i, Refused, "")
		return
	}
	if l.holder == e.actor {
		r.all(i, Refused, r.say("refused: ", r.actor(e), "'s lease on ", scope, " (token ", r.itoa(l.token), ") ", l.ended))
		return
	}
	r.all(i, Refused, r.say("refused: ", r.actor(e), " does not hold ", scope))
}

// remember keeps a check's or renewal's answer about a scope, for a later
// write that names the scope (model 3).
func (w *worker) remember(scope int, answer int8, why string) {
	if scope >= 0 {
		g := &w.grants[scope]
		g.answer, g.answerWhy = answer, why
	}
}

// check asks the lease service about the lease of the scope the event
// names, or else of the actor's latest grant.
func (r *replayer) check(i int, e op) {
	w := &r.workers[e.actor]
	scope := e.scope
	if scope < 0 && w.hasGrant {
		scope = w.scope
	}
	ok, why := r.leaseState(e.actor, scope)
	w.answer, w.answerStep = -1, i+1
	w.answerWhy = r.say("its check at step ", r.itoa(int64(i+1)), " said: ", why)
	if ok {
		w.answer = 1
	}
	w.remember(scope, w.answer, w.answerWhy)
	r.all(i, OK, r.say(r.actor(e), " checks: ", why))
}

// leaseState asks the lease service about the actor's latest grant of
// scope: is it valid, and why (no reason when the replay is quiet).
func (r *replayer) leaseState(actor, scope int) (bool, string) {
	w := &r.workers[actor]
	name := r.pr.actors[actor]
	if scope < 0 || !w.grants[scope].granted {
		if !w.hasGrant {
			return false, r.say(name, " holds no lease")
		}
		return false, r.say(name, " holds no lease on ", r.pr.scopes[scope])
	}
	l := &r.leases[scope]
	g := w.grants[scope]
	valid := l.find(actor) >= 0
	if r.quiet {
		return valid, ""
	}
	sc, t := r.pr.scopes[scope], r.itoa(g.token)
	cur, held := l.current()
	switch {
	case valid:
		return true, r.say(name, "'s lease on ", sc, " (token ", t, ") is valid")
	case l.holder == actor && l.token == g.token:
		return false, r.say(name, "'s lease on ", sc, " (token ", t, ") ", l.ended)
	case held:
		return false, r.say(name, "'s lease on ", sc, " (token ", t, ") ended; ", r.pr.actors[cur.actor], " holds token ", r.itoa(cur.token))
	}
	return false, r.say(name, "'s lease on ", sc, " (token ", t, ") ended")
}

func ptr[T any](v T) *T { return &v }
