package logs

import (
	"fmt"

	"fencelab/lab"
)

// incarnations gives a crashed actor's later events to its next
// incarnation; an expire or release of a lease it held before the crash
// stays the crashed process's, and a crash logged again before the next
// incarnation acts is left out.
func (p *pipeline) incarnations() {
	type life struct {
		n       int
		crashed *ev
		held    map[string]bool // scopes the current incarnation holds
		before  map[string]bool // scopes held at the crash
	}
	lives := map[string]*life{}
	var out []*ev
	for _, e := range p.events {
		if e.actor == "" || e.kind == lab.Deliver || e.kind == lab.Commit || e.kind == lab.Restart {
			out = append(out, e)
			continue
		}
		l := lives[e.actor]
		if l == nil {
			l = &life{n: 1, held: map[string]bool{}}
			lives[e.actor] = l
		}
		e.origActor = e.actor
		if l.crashed != nil {
			switch {
			case e.kind == lab.Crash:
				p.gap("incarnation", fmt.Sprintf("%s logs a second crash before it logs "+
					"anything else: it is left out", e.actor), p.src(e), p.src(l.crashed))
				continue
			case (e.kind == lab.Expire || e.kind == lab.Release) && l.before[e.scope]:
				e.incarnation = l.n
				if l.n > 1 {
					e.crash = l.crashed
				}
				delete(l.before, e.scope)
				out = append(out, e)
				continue
			}
			l.n++
			e.crash = l.crashed
			p.gap("incarnation", fmt.Sprintf("%s logs again after its crash at %s: from %s on its events are "+
				"a new process's, incarnation %d", e.actor, p.src(l.crashed), p.src(e), l.n), p.src(l.crashed), p.src(e))
			l.crashed, l.held = nil, map[string]bool{}
		}
		if l.n > 1 {
			e.incarnation = l.n
			if e.crash == nil {
				e.crash = p.lastCrash(out, e.actor)
			}
		}
		switch e.kind {
		case lab.Acquire:
			l.held[e.scope] = true
		case lab.Expire, lab.Release:
			delete(l.held, e.scope)
		case lab.Crash:
			l.crashed, l.before = e, l.held
		}
		out = append(out, e)
	}
	p.events = out
}

func (p *pipeline) lastCrash(out []*ev, actor string) *ev {
	for i := len(out) - 1; i >= 0; i-- {
		if out[i].kind == lab.Crash && out[i].origActor == actor {
			return out[i]
		}
	}
	return nil
}

// label names an event's actor in words, with its incarnation.
func label(e *ev) string {
	if e.incarnation > 1 {
		return fmt.Sprintf("%s (incarnation %d)", e.actor, e.incarnation)
	}
	return e.actor
}

// who is an event's actor as the lease rules see it: the actor and its
// incarnation.
func who(e *ev) string {
	if e.incarnation > 1 {
		return fmt.Sprintf("%s\x00%d", e.actor, e.incarnation)
	}
	return e.actor
}

// tokens gives an acquire that logs no token the token of its actor's
// first later write or send in the scope that logs one (before its next
// acquire); without one, it keeps none, with a gap when other lines log
// tokens.
func (p *pipeline) tokens() {
	anyToken := false
	for _, e := range p.events {
		if e.token != nil {
			anyToken = true
		}
	}
	if !anyToken {
		return
	}
	for i, e := range p.events {
		if e.kind != lab.Acquire || e.token != nil {
			continue
		}
		var found *ev
		for _, w := range p.events[i+1:] {
			if who(w) != who(e) {
				continue
			}
			if w.kind == lab.Acquire && w.scope == e.scope {
				break
			}
			if (w.kind == lab.Write || w.kind == lab.Send) && w.token != nil && (w.scope == "" || w.scope == e.scope) {
				found = w
				break
			}
		}
		if found != nil {
			t := *found.token
			e.token = &t
			e.cites = append(e.cites, found)
			p.gap("acquire-token-inferred", fmt.Sprintf("%s's acquire logs no token: it is "+
				"taken from %s, which uses %d", e.actor, p.src(found), t), p.src(e), p.src(found))
			continue
		}
		p.gap("acquire-token-unknown", fmt.Sprintf("%s's acquire logs no token, and none of its later writes "+
			"says which: the replay gives it the scope's next token, which the logs do not confirm", e.actor), p.src(e))
	}
}

// lease is a valid lease of a scope while the rules walk the timeline.
type lease struct {
	holder string
	grant  *ev
}

// repeatedGrants merges an acquire by the actor whose acquire of the
// scope is the latest, with no end between, into that grant when the
// tokens are equal or one of them is not logged: the earlier event stays,
// with the token either logs.
func (p *pipeline) repeatedGrants() {
	latest := map[string]*ev{} // scope to its latest acquire, nil once it ended
	latestScope := map[string]string{}
	var out []*ev
	for _, e := range p.events {
		switch e.kind {
		case lab.Expire, lab.Release:
			scope := e.scope
			if scope == "" {
				scope = latestScope[who(e)]
			}
			if g := latest[scope]; g != nil && who(g) == who(e) {
				latest[scope] = nil
			}
		case lab.Acquire:
			g := latest[e.scope]
			if g != nil && who(g) == who(e) && (e.token == nil || g.token == nil || *e.token == *g.token) {
				if g.token == nil && e.token != nil {
					t := *e.token
					g.token = &t
				}
				g.cites = append(g.cites, e)
				p.gap("repeated-grant", fmt.Sprintf("%s logs the grant of %s's lease again (the lease library "+
					"and the application, or the worker and the lease service, both log it): one grant",
					p.src(e), e.actor), p.src(g), p.src(e))
				continue
			}
			latest[e.scope] = e
			latestScope[who(e)] = e.scope
		}
		out = append(out, e)
	}
	p.events = out
}

// leases applies the remaining lease rules in the merged order: a
// holder's re-acquire, an expiry the logs do not show, and the scope of
// an expire, release or renew that names none.
func (p *pipeline) leases() {
	valid := map[string]*lease{}
	latestScope := map[string]string{}
	var out []*ev
	lastOf := map[string]*ev{} // each actor's latest event placed
	for _, e := range p.events {
		switch e.kind {
		case lab.Expire, lab.Release, lab.Renew:
			if e.scope == "" {
				e.scope = latestScope[who(e)]
			}
		}
		switch e.kind {
		case lab.Acquire:
			cur := valid[e.scope]
			switch {
			case cur != nil && cur.holder == who(e):
				g := cur.grant
				switch {
				case e.token != nil && g.token != nil && *e.token > *g.token:
					rel := p.inferred(e, lab.Release, cur.grant, fmt.Sprintf("%s took a greater token, %d, "+
						"while it held %d: its lease is re-acquired (a range id bump), so the "+
						"lease of %d is released first", e.actor, *e.token, *g.token, *g.token))
					rel.after = p.lastBefore(lastOf, e)
					out = append(out, rel)
					p.gap("reacquire", rel.why, p.src(e))
				}
			case cur != nil:
				exp := p.inferred(e, lab.Expire, cur.grant, "")
				exp.actor, exp.incarnation, exp.origActor = cur.grant.actor, cur.grant.incarnation, cur.grant.origActor
				tok := "a token"
				if e.token != nil {
					tok = fmt.Sprint(*e.token)
				}
				exp.why = fmt.Sprintf("the logs do not say when %s's lease ended; it must have ended "+
					"before %s was granted %s at %s", label(cur.grant), label(e), tok, p.src(e))
				if last := lastOf[who(cur.grant)]; last != nil {
					exp.after = []*ev{last}
				}
				out = append(out, exp)
				p.gap("inferred-expiry", exp.why, p.src(e))
			}
			valid[e.scope] = &lease{holder: who(e), grant: e}
			latestScope[who(e)] = e.scope
		case lab.Expire, lab.Release:
			if cur := valid[e.scope]; cur != nil && cur.holder == who(e) {
				delete(valid, e.scope)
			}
		}
		out = append(out, e)
		lastOf[who(e)] = e
	}
	p.events = out
}

// lastBefore is the actor's event before e, for an inferred release.
func (p *pipeline) lastBefore(lastOf map[string]*ev, e *ev) []*ev {
	if l := lastOf[who(e)]; l != nil {
		return []*ev{l}
	}
	return nil
}

// inferred makes an event the logs imply, right before the line that
// forces it.
func (p *pipeline) inferred(cause *ev, kind lab.Kind, grant *ev, why string) *ev {
	ie := &entry{
		kind:     string(kind),
		actor:    cause.actor,
		hasActor: true,
		scope:    grant.scope,
		t:        cause.entry.t,
		hasTime:  cause.hasTime,
		file:     cause.file,
		line:     cause.line,
	}
	e := &ev{entry: ie, kind: kind, inferred: true, cause: cause, why: why, host: cause.host, rank: cause.rank, before: cause,
		incarnation: cause.incarnation, origActor: cause.origActor, shift: cause.shift}
	return e
}

// inferredOf lists the inferred events, for the result.
func (p *pipeline) inferredList() []InferredEvent {
	var out []InferredEvent
	for i, e := range p.events {
		if e.inferred {
			out = append(out, InferredEvent{Step: i + 1, Kind: e.kind, Sources: []string{p.src(e)}, Words: e.why})
		}
	}
	if out == nil {
		out = []InferredEvent{}
	}
	return out
}
