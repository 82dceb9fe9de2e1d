package views

import (
	"slices"

	"fencelab/lab"
)

// walk is what one pass over the steps learns about the workers and the
// lease service: the same under every policy, since nothing a receiver
// decides flows back to them.
type walk struct {
	bars    []*leaseSpan
	shades  []span
	crashY  map[string]int
	valid   map[int]bool   // check step → the asked-about lease was valid
	expired map[int]*int64 // expire or release step → the token that ended
}

// leaseSpan is a lease on its actor's lane: held (a bar), or expired while
// its worker, unaware, carries on (a ghost: dashed outline).
type leaseSpan struct {
	actor, scope string
	token        *int64
	y1, y2       int
	ghost        bool
}

// span is a pause on an actor's lane.
type span struct {
	actor  string
	y1, y2 int
}

// walker holds the open spans while walkSteps runs.
type walker struct {
	g      *grid
	w      walk
	open   []*leaseSpan // valid leases
	ghosts []*leaseSpan
	paused []span
	latest map[string]string // actor → scope of its latest grant
}

func walkSteps(g *grid) walk {
	k := &walker{g: g, latest: map[string]string{}}
	k.w = walk{crashY: map[string]int{}, valid: map[int]bool{}, expired: map[int]*int64{}}
	for i, st := range g.t.Steps {
		if g.outcome(i).Decision != lab.Skipped {
			k.step(i, st, g.mid(i))
		}
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

func (k *walker) step(i int, st lab.Step, y int) {
	e := st.Event
	if e.Kind != lab.Expire { // the lease service's act, not the worker's
		for _, sp := range k.ghosts {
			if sp.actor == e.Actor {
				sp.y2 = y
			}
		}
	}
	switch e.Kind {
	case lab.Acquire:
		if k.g.outcome(i).Decision == lab.Granted {
			k.endGhosts(func(sp *leaseSpan) bool { return sp.actor == e.Actor && sp.scope == e.Scope })
			k.open = append(k.open, &leaseSpan{actor: e.Actor, scope: e.Scope, token: st.Token, y1: y})
			k.latest[e.Actor] = e.Scope
		}
	case lab.Expire, lab.Release:
		k.end(i, e, y)
	case lab.Check:
		k.w.valid[i] = k.holder(e.Actor, k.latest[e.Actor]) != nil
		if !k.w.valid[i] { // the worker now knows
			k.endGhosts(func(sp *leaseSpan) bool { return sp.actor == e.Actor })
		}
	case lab.Renew:
		if k.g.outcome(i).Decision == lab.Refused {
			k.endGhosts(func(sp *leaseSpan) bool { return sp.actor == e.Actor && sp.scope == e.Scope })
		}
	case lab.Pause:
		k.paused = append(k.paused, span{e.Actor, y, 0})
	case lab.Resume:
		k.unpause(e.Actor, y)
	case lab.Crash:
		k.w.crashY[e.Actor] = y
		k.unpause(e.Actor, y)
		k.endGhosts(func(sp *leaseSpan) bool { return sp.actor == e.Actor })
	}
}

// end closes the actor's lease at an expire or a release; an expired lease
// lives on as a ghost while the worker keeps acting on it.
func (k *walker) end(i int, e lab.Event, y int) {
	sp := k.holder(e.Actor, e.Scope)
	if sp == nil {
		return
	}
	sp.y2 = y
	k.w.bars = append(k.w.bars, sp)
	k.w.expired[i] = sp.token
	k.open = slices.DeleteFunc(k.open, func(o *leaseSpan) bool { return o == sp })
	if e.Kind == lab.Expire {
		k.ghosts = append(k.ghosts, &leaseSpan{actor: e.Actor, scope: e.Scope, token: sp.token, y1: y, y2: y, ghost: true})
	}
}

func (k *walker) holder(actor, scope string) *leaseSpan {
	for _, sp := range k.open {
		if sp.actor == actor && sp.scope == scope {
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
	if sp.ghost {
		g.used[legendGhost] = true
		tip = sp.actor + "'s lease " + token(sp.token) + " has expired, but " + sp.actor + " cannot tell"
		return group{class: "lease expired", tip: tip, shapes: []shape{
			{kind: shRect, x1: x, y1: sp.y1, x2: w, y2: sp.y2 - sp.y1, fill: "#ffffff", stroke: c.line, width: "1.5", dash: "4 3"},
		}}
	}
	g.used[legendLease] = true
	return group{class: "lease", tip: tip, shapes: []shape{
		{kind: shRect, x1: x, y1: sp.y1, x2: w, y2: sp.y2 - sp.y1, fill: c.fill, stroke: c.line, width: "1"},
	}}
}
