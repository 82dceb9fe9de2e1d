package logs

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"fencelab/lab"
)

// byLoggedTime is every event in the order of its logged time, ties in
// read order.
func (p *pipeline) byLoggedTime() []*ev {
	all := p.all()
	slices.SortStableFunc(all, func(a, b *ev) int {
		if c := a.entry.t.Compare(b.entry.t); c != 0 && a.hasTime && b.hasTime {
			return c
		}
		if a.rank != b.rank {
			return a.rank - b.rank
		}
		return a.line - b.line
	})
	return all
}

// pair gives each deliver and commit its send, by logged time: the first
// earlier send of its request not yet delivered, else the latest earlier
// one, else a send inferred inside a drop window, else the first later
// send not yet delivered; else it is left out.
func (p *pipeline) pair() {
	order := p.byLoggedTime()
	delivered := map[*ev]bool{}
	remove := map[*ev]bool{}
	for i, d := range order {
		if d.kind != lab.Deliver && d.kind != lab.Commit {
			continue
		}
		var first, latest *ev
		for _, s := range order[:i] {
			if s.kind == lab.Send && s.request == d.request {
				if first == nil && !delivered[s] && d.kind == lab.Deliver {
					first = s
				}
				latest = s
			}
		}
		s := first
		if s == nil {
			s = latest
		}
		if s == nil {
			if inf := p.inferSend(d, order[i+1:]); inf != nil {
				s = inf
			}
		}
		if s == nil {
			for _, c := range order[i+1:] {
				if c.kind == lab.Send && c.request == d.request && !delivered[c] {
					s = c
					break
				}
			}
		}
		if s == nil {
			remove[d] = true
			p.gap("deliver-without-send", fmt.Sprintf("the resource logged request %q, but no send of it is "+
				"in the logs: it is left out of the scenario, with its observed outcome (a worker's log may be missing)",
				d.request), p.src(d))
			continue
		}
		d.send = s
		if d.kind == lab.Deliver {
			delivered[s] = true
		}
	}
	for _, h := range p.hosts {
		p.queue[h] = slices.DeleteFunc(p.queue[h], func(e *ev) bool { return remove[e] })
	}
}

// inferSend is the send a drop notice's window lost, right before the
// deliver: by the actor granted the deliver's token, else by the actor
// of a later send of the request, with that send's value and resource.
func (p *pipeline) inferSend(d *ev, later []*ev) *ev {
	if !p.inDrop(d.entry.t) {
		return nil
	}
	var actor string
	var like *ev
	for _, c := range later {
		if c.kind == lab.Send && c.request == d.request {
			like = c
			break
		}
	}
	if d.token != nil {
		for _, a := range p.all() {
			if a.kind == lab.Acquire && a.token != nil && *a.token == *d.token {
				actor = a.actor
				break
			}
		}
	}
	if actor == "" && like != nil {
		actor = like.actor
	}
	if actor == "" {
		return nil
	}
	se := &entry{kind: string(lab.Send), actor: actor, hasActor: true, request: d.request, token: d.token,
		hasTime: d.hasTime, t: d.entry.t, file: d.file, line: d.line}
	s := &ev{entry: se, kind: lab.Send, inferred: true, cause: d, host: d.host, rank: d.rank,
		why: fmt.Sprintf("the logs dropped lines here: %s's send of %q is inferred from the deliver at %s", actor, d.request, p.src(d))}
	if like != nil {
		se.value, se.hasValue, se.resource, se.scope, se.op = like.value, like.hasValue, like.resource, like.scope, like.op
		s.cites = append(s.cites, like)
	}
	q := p.queue[d.host]
	i := slices.Index(q, d)
	p.queue[d.host] = slices.Insert(q, i, s)
	p.gap("inferred-send", s.why, p.src(d))
	return s
}

func (p *pipeline) inDrop(t time.Time) bool {
	for _, d := range p.drops {
		if !t.Before(d.From) && !t.After(d.To) {
			return true
		}
	}
	return false
}

// constraint is a causal order the logs give: before's line happened
// before after's, whatever their clocks say.
type constraint struct {
	before, after *ev
	what          string // "sent" or "granted token N"
}

// causes lists the causal constraints between hosts: a send before its
// deliver, and the acquire that granted token t to an actor before each
// write or send of that actor that logs t.
func (p *pipeline) causes() []constraint {
	var out []constraint
	all := p.all()
	grants := map[string]*ev{}
	for _, e := range all {
		if e.kind == lab.Acquire && e.token != nil && !e.inferred {
			k := fmt.Sprintf("%s\x00%d", e.actor, *e.token)
			if _, ok := grants[k]; !ok {
				grants[k] = e
			}
		}
	}
	for _, e := range all {
		switch e.kind {
		case lab.Deliver, lab.Commit:
			if e.send != nil && !e.send.inferred {
				out = append(out, constraint{before: e.send, after: e, what: "sent"})
			}
		case lab.Write, lab.Send:
			if e.token != nil && !e.inferred {
				if g := grants[fmt.Sprintf("%s\x00%d", e.actor, *e.token)]; g != nil {
					e.grant = g
					out = append(out, constraint{before: g, after: e, what: fmt.Sprintf("granted token %d", *e.token)})
				}
			}
		}
	}
	return out
}

// clocks estimates each host's offset: the greatest offsets at or below
// zero under which every causal constraint holds, found as shortest
// paths from a virtual source (Bellman–Ford). A negative cycle is a
// contradiction: the offsets stay zero.
func (p *pipeline) clocks() {
	cons := p.causes()
	dist := map[string]time.Duration{}
	pred := map[string]*constraint{}
	for _, h := range p.hosts {
		dist[h] = 0
	}
	relax := func() *constraint {
		var changed *constraint
		for i := range cons {
			c := &cons[i]
			a, b := c.before, c.after
			if a.host == b.host || !a.hasTime || !b.hasTime {
				continue
			}
			// t_a + o_A <= t_b + o_B, so o_A <= o_B + (t_b - t_a).
			w := b.entry.t.Sub(a.entry.t)
			if nd := dist[b.host] + w; nd < dist[a.host] {
				dist[a.host] = nd
				pred[a.host] = c
				changed = c
			}
		}
		return changed
	}
	for range len(p.hosts) {
		if relax() == nil {
			break
		}
	}
	if c := relax(); c != nil {
		p.contradiction(c, pred)
		return
	}
	for _, h := range p.hosts {
		if dist[h] == 0 {
			continue
		}
		p.offsets[h] = dist[h]
		p.offsetWhy[h] = p.offsetWords(h, dist, pred)
		p.gap("clock-offset", p.offsetWhy[h].Words, p.offsetWhy[h].Sources...)
		for _, e := range p.queue[h] {
			e.shift = dist[h]
		}
	}
}

// offsetWords says which lines force a host's offset.
func (p *pipeline) offsetWords(h string, dist map[string]time.Duration, pred map[string]*constraint) *Offset {
	o := &Offset{Host: h, OffsetMS: float64(dist[h]) / float64(time.Millisecond)}
	var why []string
	root := h
	for seen := map[string]bool{}; pred[root] != nil && !seen[root]; {
		seen[root] = true
		c := pred[root]
		o.Sources = append(o.Sources, p.src(c.before), p.src(c.after))
		why = append(why, p.constraintWords(c))
		root = c.after.host
	}
	amount := -dist[h] + dist[root]
	o.Words = fmt.Sprintf("%s's clock runs at least %s ahead of %s's: %s; %s's lines are moved %s earlier",
		h, amount, root, strings.Join(why, "; "), h, -dist[h])
	return o
}

// constraintWords says how the logged times break one constraint: "w.log:8
// sent r-1 after store.log:3 applied it", "sched.log:4 granted token 42
// after worker-2.log:1 used it".
func (p *pipeline) constraintWords(c *constraint) string {
	if c.what == "sent" {
		return fmt.Sprintf("%s sent %s after %s %s it", p.src(c.before), c.before.request, p.src(c.after), p.didWord(c.after))
	}
	return fmt.Sprintf("%s %s after %s used it", p.src(c.before), c.what, p.src(c.after))
}

// didWord is what a line did with the request or token, for the words.
func (p *pipeline) didWord(e *ev) string {
	switch e.kind {
	case lab.Deliver, lab.Commit:
		if e.observed != "" {
			return string(e.observed)
		}
		return "received"
	case lab.Acquire:
		return "granted"
	}
	return "logged"
}

// contradiction names a cycle of constraints that no offsets satisfy.
func (p *pipeline) contradiction(c *constraint, pred map[string]*constraint) {
	var srcs []string
	h := c.before.host
	for seen := map[string]bool{}; !seen[h] && pred[h] != nil; h = pred[h].after.host {
		seen[h] = true
		srcs = append(srcs, p.src(pred[h].before), p.src(pred[h].after))
	}
	if len(srcs) == 0 {
		srcs = []string{p.src(c.before), p.src(c.after)}
	}
	words := "the logged times contradict the order the logs imply (a send after its deliver, a token used " +
		"before its grant) in a cycle no clock offsets can undo: the offsets are left at zero, " +
		"and each deliver is placed right after its send"
	p.contradict = &Contradiction{Sources: srcs, Words: words}
	p.gap("clock-contradiction", words, srcs...)
	for _, d := range p.all() {
		if d.send != nil && d.hasTime && d.send.hasTime && d.entry.t.Before(d.send.entry.t) {
			p.gap("deliver-before-send", fmt.Sprintf("the resource logged request %q %s before its send (%s): "+
				"it is placed right after its send",
				d.request, d.send.entry.t.Sub(d.entry.t), p.src(d.send)), p.src(d), p.src(d.send))
		}
	}
}

// merge puts the hosts' events in one order: each host's in its line
// order; next, the earliest by shifted time of the hosts' next events
// whose causes are placed; at equal times, the file read first, then the
// earlier line.
func (p *pipeline) merge() {
	heads := map[string]int{}
	placed := map[*ev]bool{}
	total := len(p.all())
	warned := false
	ready := func(e *ev) bool {
		return (e.send == nil || placed[e.send]) && (e.grant == nil || placed[e.grant])
	}
	for len(p.events) < total {
		var best *ev
		anyReady := false
		for pass := 0; pass < 2 && best == nil; pass++ {
			for _, h := range p.hosts {
				q := p.queue[h]
				if heads[h] >= len(q) {
					continue
				}
				e := q[heads[h]]
				if pass == 0 && !ready(e) {
					continue
				}
				if pass == 0 {
					anyReady = true
				}
				if best == nil || earlier(e, best) {
					best = e
				}
			}
		}
		if !anyReady && !warned && p.contradict == nil {
			warned = true
			p.gap("clock-contradiction", "no next event of any host has its causes placed: the earliest goes first", p.src(best))
		}
		placed[best] = true
		heads[best.host]++
		p.events = append(p.events, best)
	}
}

func earlier(a, b *ev) bool {
	if a.hasTime && b.hasTime {
		if c := a.at().Compare(b.at()); c != 0 {
			return c < 0
		}
	}
	if a.rank != b.rank {
		return a.rank < b.rank
	}
	return a.line < b.line
}

// lineOrder names each line stamped before the line above it on its host.
func (p *pipeline) lineOrder() {
	for _, h := range p.hosts {
		var prev *ev
		for _, e := range p.queue[h] {
			if e.computed || e.inferred || !e.hasTime {
				continue
			}
			if prev != nil && e.entry.t.Before(prev.entry.t) && e.entry != prev.entry {
				p.gap("line-order", fmt.Sprintf("%s is stamped %s before the line above it (%s): it "+
					"keeps its place in %s's order",
					p.src(e), prev.entry.t.Sub(e.entry.t), p.src(prev), h), p.src(e), p.src(prev))
			}
			prev = e
		}
	}
}
