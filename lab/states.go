package lab

import "slices"

// StepState is the lease service and the workers after one step: the same
// under every policy, since nothing a receiver decides flows back to them.
// It is what a picture of the run needs to say who holds what.
type StepState struct {
	Leases   []LeaseState  // one per scope, in name order
	Workers  []WorkerState // one per actor, in order of first appearance
	InFlight []string      // ids of the requests sent and not yet delivered, in send order
}

// LeaseState is one scope at the lease service.
type LeaseState struct {
	Scope  string
	Holder string // the actor of the latest grant; empty before any
	Token  int64  // the latest grant's token
	Valid  bool   // the holder validly holds the scope
	// Held is every valid lease of the scope, in grant order (model 3):
	// two or more after a split grant, and the current holder's last. A
	// picture needs them all to draw split brain.
	Held []ActorLease
	// Forgotten is the leases a restart of the scope's lease service
	// forgot at this step (model 3: a memory scope); empty at every other
	// step, so a picture can tell a lease cut by a restart from one that
	// expired.
	Forgotten []ActorLease
}

// ActorLease is one lease of a scope: the actor it was granted to and its
// token.
type ActorLease struct {
	Actor string
	Token int64
}

// WorkerState is one actor.
type WorkerState struct {
	Actor           string
	Paused, Crashed bool
	Scope           string // the scope of its latest grant; empty before any
	Token           int64  // the token of its latest grant
	// Unaware lists its leases that expired, or that a restart of the
	// lease service forgot (model 3), while it has not learned so: no
	// check said so, no renewal was refused, it took the scope again or
	// crashed. In the order they ended.
	Unaware []HeldLease
}

// HeldLease is a lease a worker was granted: a scope and its token.
type HeldLease struct {
	Scope string
	Token int64
}

// States replays s as Replay does and returns the state of the lease
// service and the workers after each step, one per event. A skipped step
// leaves the state as it was.
func States(s *Scenario) []StepState {
	r := newReplayer(s)
	r.quiet = true
	out := make([]StepState, len(r.pr.events))
	unaware := make([][]HeldLease, len(r.pr.actors))
	for i, e := range r.pr.events {
		forgotten := r.forgets(e)
		r.step(i)
		if r.steps[i].Outcomes[0].Decision != Skipped {
			r.learn(unaware, i, e)
			r.unawareOf(unaware, e, forgotten)
		}
		out[i] = r.state(unaware)
		if len(forgotten) > 0 {
			out[i].Leases[e.scope].Forgotten = forgotten
		}
	}
	return out
}

// forgets is the leases that e, a restart of a memory scope, is about to
// forget; nil for any other event. A restart is never skipped.
func (r *replayer) forgets(e op) []ActorLease {
	if e.kind != Restart || e.scope < 0 || !r.pr.scopeMemory[e.scope] {
		return nil
	}
	return r.actorLeases(&r.leases[e.scope])
}

// unawareOf adds each forgotten lease to its worker's unaware list: the
// lease service that forgot it tells nobody.
func (r *replayer) unawareOf(unaware [][]HeldLease, e op, forgotten []ActorLease) {
	for _, f := range forgotten {
		a := slices.Index(r.pr.actors, f.Actor)
		u := unaware[a]
		unaware[a] = append(u[:len(u):len(u)], HeldLease{r.pr.scopes[e.scope], f.Token})
	}
}

// actorLeases names the valid leases of l, in grant order.
func (r *replayer) actorLeases(l *lease) []ActorLease {
	var out []ActorLease
	for _, g := range l.held() {
		out = append(out, ActorLease{r.pr.actors[g.actor], g.token})
	}
	return out
}

// learn updates which expired leases each worker is unaware of after step i.
func (r *replayer) learn(unaware [][]HeldLease, i int, e op) {
	d := r.steps[i].Outcomes[0].Decision
	forget := func(scope int) {
		u := unaware[e.actor][:0:0]
		for _, h := range unaware[e.actor] {
			if scope >= 0 && h.Scope != r.pr.scopes[scope] {
				u = append(u, h)
			}
		}
		unaware[e.actor] = u
	}
	switch {
	case e.kind == Expire:
		held := unaware[e.actor]
		unaware[e.actor] = append(held[:len(held):len(held)], HeldLease{r.pr.scopes[e.scope], r.workers[e.actor].grants[e.scope].token})
	case e.kind == Acquire && d == Granted, e.kind == Renew && d == Refused:
		forget(e.scope)
	case e.kind == Check && r.workers[e.actor].answer < 0, e.kind == Crash:
		forget(-1)
	}
}

// state copies the lease service and the workers as they are now.
func (r *replayer) state(unaware [][]HeldLease) StepState {
	st := StepState{Leases: make([]LeaseState, len(r.leases)), Workers: make([]WorkerState, len(r.workers))}
	for i, l := range r.leases {
		st.Leases[i] = LeaseState{Scope: r.pr.scopes[i], Token: l.token, Valid: l.latestValid(), Held: r.actorLeases(&r.leases[i])}
		if l.holder >= 0 {
			st.Leases[i].Holder = r.pr.actors[l.holder]
		}
	}
	for i, w := range r.workers {
		ws := WorkerState{Actor: r.pr.actors[i], Paused: w.paused, Crashed: w.crashed, Unaware: unaware[i]}
		if w.hasGrant {
			ws.Scope, ws.Token = r.pr.scopes[w.scope], w.token
		}
		st.Workers[i] = ws
	}
	for i, q := range r.requests {
		if q.sent && !q.delivered {
			st.InFlight = append(st.InFlight, r.pr.requestIDs[i])
		}
	}
	return st
}
