package diagram

import (
	"slices"

	"fencelab/lab"
)

// walk is what the diagram draws of the workers and the lease service,
// from the engine's state after each step (lab.States): the same under
// every policy, since nothing a receiver decides flows back to them.
type walk struct {
	bars    []*leaseSpan
	shades  []span
	crashY  map[string]int
	valid   map[int]bool   // check step → the asked-about lease was valid
	expired map[int]*int64 // expire or release step → the token that ended
	// split is, at a split grant's step, the other leases of the scope
	// that stay valid beside the new one (model 3: split brain).
	split map[int][]lab.ActorLease
	// forgotten is, at a restart of a memory scope, the leases it forgot.
	forgotten map[int][]lab.ActorLease
}

// leaseSpan is a lease on its actor's lane: held (a bar), or expired while
// its worker, unaware, carries on (a ghost: dashed outline). A lease that
// a restart of the lease service forgot is cut: its bar ends in a cut
// sign, and its ghost says forgotten rather than expired.
type leaseSpan struct {
	actor, scope string
	token        *int64
	y1, y2       int
	ghost        bool
	forgotten    bool
}

// span is a pause on an actor's lane.
type span struct {
	actor  string
	y1, y2 int
}

// walker turns the engine's state after each step (lab.States) into
// spans, in the order they close.
type walker struct {
	w      walk
	prev   lab.StepState
	open   []*leaseSpan // valid leases
	ghosts []*leaseSpan
	paused []span
}

func walkSteps(g *grid) walk {
	k := &walker{}
	k.w = walk{crashY: map[string]int{}, valid: map[int]bool{}, expired: map[int]*int64{},
		split: map[int][]lab.ActorLease{}, forgotten: map[int][]lab.ActorLease{}}
	for i, st := range lab.States(g.s) {
		if i < len(g.t.Steps) && g.outcome(i).Decision != lab.Skipped {
			k.step(i, g.t.Steps[i].Event, st, g.mid(i))
		}
		k.prev = st
	}
	for _, sp := range k.open {
		sp.y2 = g.bottom
		k.w.bars = append(k.w.bars, sp)
	}
	for _, sp := range k.paused {
		k.w.shades = append(k.w.shades, span{sp.actor, sp.y1, g.bottom})
	}
	k.endGhosts(func(*leaseSpan) bool { return true })
	return k.w
}

// step closes and opens the spans that changed at step i, whose event is e
// and after which the engine's state is st.
func (k *walker) step(i int, e lab.Event, st lab.StepState, y int) {
	if e.Kind != lab.Expire { // the lease service's act, not the worker's
		for _, sp := range k.ghosts {
			if sp.actor == e.Actor {
				sp.y2 = y
			}
		}
	}
	k.endGhosts(func(sp *leaseSpan) bool { return !unaware(st, sp.actor, sp.scope) })
	k.leases(i, st, y)
	for j, w := range st.Workers {
		k.worker(w, k.prev.Workers, j, y, k.w.forgotten[i])
	}
	if e.Kind == lab.Check {
		k.w.valid[i] = holdsValid(st, e)
	}
}

// leases ends the bars of leases no longer validly held and opens one for
// each new grant: every valid lease of a scope has its bar, two at once
// after a split grant.
func (k *walker) leases(i int, st lab.StepState, y int) {
	for j, l := range st.Leases {
		for _, sp := range slices.Clone(k.open) {
			if sp.scope == l.Scope && !slices.Contains(l.Held, lab.ActorLease{Actor: sp.actor, Token: *sp.token}) {
				sp.y2, sp.forgotten = y, len(l.Forgotten) > 0
				k.w.bars = append(k.w.bars, sp)
				k.w.expired[i] = sp.token
				k.open = slices.DeleteFunc(k.open, func(o *leaseSpan) bool { return o == sp })
			}
		}
		for h, held := range l.Held {
			if k.bar(held.Actor, l.Scope, held.Token) == nil {
				k.open = append(k.open, &leaseSpan{actor: held.Actor, scope: l.Scope, token: &st.Leases[j].Held[h].Token, y1: y})
				if len(l.Held) > 1 {
					k.w.split[i] = slices.Delete(slices.Clone(l.Held), h, h+1)
				}
			}
		}
		if len(l.Forgotten) > 0 {
			k.w.forgotten[i] = l.Forgotten
		}
	}
}

// worker opens and closes its pause, marks its crash, and turns each lease
// that expired (or was forgotten) unbeknown to it into a ghost.
func (k *walker) worker(w lab.WorkerState, prev []lab.WorkerState, j int, y int, forgotten []lab.ActorLease) {
	was := lab.WorkerState{}
	if j < len(prev) {
		was = prev[j]
	}
	if w.Crashed && !was.Crashed {
		k.w.crashY[w.Actor] = y
	}
	switch paused, wasPaused := w.Paused && !w.Crashed, was.Paused && !was.Crashed; {
	case paused && !wasPaused:
		k.paused = append(k.paused, span{w.Actor, y, 0})
	case !paused && wasPaused:
		k.unpause(w.Actor, y)
	}
	for _, h := range w.Unaware {
		if !slices.ContainsFunc(k.ghosts, func(sp *leaseSpan) bool { return sp.actor == w.Actor && sp.scope == h.Scope }) {
			forgot := slices.Contains(forgotten, lab.ActorLease{Actor: w.Actor, Token: h.Token})
			k.ghosts = append(k.ghosts, &leaseSpan{actor: w.Actor, scope: h.Scope, token: &h.Token, y1: y, y2: y, ghost: true, forgotten: forgot})
		}
	}
}

// unaware reports whether, in st, actor has not learned that its lease on
// scope expired.
func unaware(st lab.StepState, actor, scope string) bool {
	for _, w := range st.Workers {
		if w.Actor == actor {
			return slices.ContainsFunc(w.Unaware, func(h lab.HeldLease) bool { return h.Scope == scope })
		}
	}
	return false
}

// holdsValid reports whether, in st, the check e found its actor's lease
// valid: of the scope it names, else of its latest grant's. Its valid
// lease of a scope, if any, is its latest grant of that scope; after a
// split grant the scope has others.
func holdsValid(st lab.StepState, e lab.Event) bool {
	scope := e.Scope
	for _, w := range st.Workers {
		if w.Actor == e.Actor && scope == "" {
			scope = w.Scope
		}
	}
	for _, l := range st.Leases {
		if scope != "" && l.Scope == scope {
			return slices.ContainsFunc(l.Held, func(h lab.ActorLease) bool { return h.Actor == e.Actor })
		}
	}
	return false
}

// bar is the open bar of the actor's lease of scope with token t, or nil.
func (k *walker) bar(actor, scope string, t int64) *leaseSpan {
	for _, sp := range k.open {
		if sp.actor == actor && sp.scope == scope && *sp.token == t {
			return sp
		}
	}
	return nil
}

func (k *walker) unpause(actor string, y int) {
	for j, sp := range k.paused {
		if sp.actor == actor {
			k.w.shades = append(k.w.shades, span{actor, sp.y1, y})
			k.paused = slices.Delete(k.paused, j, j+1)
			return
		}
	}
}

// endGhosts keeps the ghosts that match and lasted past their expiry.
func (k *walker) endGhosts(match func(*leaseSpan) bool) {
	k.ghosts = slices.DeleteFunc(k.ghosts, func(sp *leaseSpan) bool {
		if !match(sp) {
			return false
		}
		if sp.y2 > sp.y1 {
			k.w.bars = append(k.w.bars, sp)
		}
		return true
	})
}

// spans draws pauses, then leases over them.
func (g *grid) spans() []group {
	var out []group
	for _, sp := range g.walk.shades {
		x := g.xOfActor(sp.actor)
		out = append(out, group{class: "pause", shapes: []shape{
			{kind: shRect, x1: x - 15, y1: sp.y1, x2: 30, y2: sp.y2 - sp.y1, r: 3, fill: colPause, stroke: colPauseLine, width: "1", dash: "3 3"},
		}})
		g.used[legendPause] = true
	}
	for _, sp := range g.walk.bars {
		out = append(out, g.leaseBar(sp))
	}
	return out
}

func (g *grid) leaseBar(sp *leaseSpan) group {
	c := g.colour(sp.actor)
	x, w := g.xOfActor(sp.actor)-4, 9
	if n := len(g.scopes); n > 1 {
		x, w = g.xOfActor(sp.actor)+slices.Index(g.scopes, sp.scope)*8-n*4, 7
	}
	tip := sp.actor + " holds " + sp.scope + " with token " + token(sp.token)
	switch {
	case sp.ghost && sp.forgotten:
		g.used[legendForgotten] = true
		tip = sp.actor + "'s lease " + token(sp.token) + " was forgotten when the lease service restarted, but " + sp.actor + " cannot tell"
		return group{class: "lease expired forgotten", tip: tip, shapes: []shape{
			{kind: shRect, x1: x, y1: sp.y1, x2: w, y2: sp.y2 - sp.y1, fill: "#ffffff", stroke: c.line, width: "1.5", dash: "4 3"},
		}}
	case sp.ghost:
		g.used[legendGhost] = true
		tip = sp.actor + "'s lease " + token(sp.token) + " has expired, but " + sp.actor + " cannot tell"
		return group{class: "lease expired", tip: tip, shapes: []shape{
			{kind: shRect, x1: x, y1: sp.y1, x2: w, y2: sp.y2 - sp.y1, fill: "#ffffff", stroke: c.line, width: "1.5", dash: "4 3"},
		}}
	}
	g.used[legendLease] = true
	shapes := []shape{{kind: shRect, x1: x, y1: sp.y1, x2: w, y2: sp.y2 - sp.y1, fill: c.fill, stroke: c.line, width: "1"}}
	if sp.forgotten {
		g.used[legendForgotten] = true
		tip += " until the lease service restarts and forgets it"
		shapes = append(shapes, cutSign(x+w/2, sp.y2)...)
	}
	return group{class: "lease", tip: tip, shapes: shapes}
}

// cutSign cuts a lease bar with two slashes where a restart of the lease
// service forgot it, as restartSign cuts a lane.
func cutSign(x, y int) []shape {
	return []shape{
		{kind: shRect, x1: x - 8, y1: y - 3, x2: 16, y2: 7, fill: colWhite},
		{kind: shLine, x1: x - 8, y1: y + 1, x2: x + 8, y2: y - 5, stroke: colInk, width: "2"},
		{kind: shLine, x1: x - 8, y1: y + 6, x2: x + 8, y2: y, stroke: colInk, width: "2"},
	}
}
