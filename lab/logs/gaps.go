package logs

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"fencelab/lab"
)

// lineGaps lists what single lines leave unsaid: a token, a value, an
// observed outcome, an acquire of the actor.
func (p *pipeline) lineGaps() []Gap {
	var out []Gap
	add := func(kind, words string, e *ev) {
		out = append(out, Gap{Kind: kind, Sources: []string{p.src(e)}, Words: words})
	}
	observing := p.observing()
	for _, e := range p.events {
		if e.inferred {
			continue
		}
		switch e.kind {
		case lab.Write, lab.Send:
			if e.token == nil {
				add("token-assumed", fmt.Sprintf("%s's %s logs no token: the replay assumes its latest grant, "+
					"but a stale writer is exactly one whose token is not its latest", e.actor, e.kind), e)
			}
			if !e.hasValue {
				add("value-assumed", fmt.Sprintf("%s's %s logs no value: it is shown as \"?\", so the final "+
					"values cannot be compared", e.actor, e.kind), e)
			}
		case lab.Deliver:
			if e.token == nil {
				add("token-unobserved", fmt.Sprintf("the resource's line for request %q logs no token: the "+
					"token the resource observed is what tells a stale write from a valid one", e.request), e)
			}
		}
		if observing && (e.kind == lab.Write || e.kind == lab.Deliver) && e.observed == "" {
			add("outcome-unobserved", fmt.Sprintf("no outcome is logged for this %s: which policy the "+
				"resource follows cannot be told at this step", e.kind), e)
		}
	}
	return append(out, p.actorsWithoutAcquire()...)
}

// observing reports whether the mapping says anywhere what the resource did.
func (p *pipeline) observing() bool {
	for _, k := range append([]*Keys{&p.im.m.Keys}, sectionKeys(p.im.m)...) {
		if k.Observed != nil {
			return true
		}
		for _, r := range k.Kinds {
			if r.Observed != nil || (r.re != nil && slices.Contains(r.re.SubexpNames(), "observed")) {
				return true
			}
		}
	}
	return false
}

// actorsWithoutAcquire names each actor that acts but never acquires.
func (p *pipeline) actorsWithoutAcquire() []Gap {
	acquires := map[string]bool{}
	for _, e := range p.events {
		if e.kind == lab.Acquire {
			acquires[who(e)] = true
		}
	}
	var out []Gap
	for _, e := range p.events {
		if e.actor == "" || acquires[who(e)] || e.inferred {
			continue
		}
		switch e.kind {
		case lab.Deliver, lab.Commit, lab.Restart, lab.Crash, lab.Pause, lab.Resume:
			continue
		}
		acquires[who(e)] = true // one gap per actor
		out = append(out, Gap{Kind: "no-acquire", Sources: []string{p.src(e)}, Words: fmt.Sprintf(
			"%s acts but no acquire of its lease is in the logs: its requests carry no grant, so every policy "+
				"treats it as holding nothing (the lease service's log may be missing, or start too late)", e.actor)})
	}
	return out
}

// window is how close two hosts' events may be and still be unordered:
// the skew, or without one, equal times.
func (p *pipeline) window() time.Duration {
	if p.im.opt.Explore {
		return p.im.opt.Skew
	}
	return 0
}

// unordered lists each run of events, in order, each within the window
// of the one before, that involves several hosts and that nothing else
// orders: the logs do not say their order.
func (p *pipeline) unordered() []Gap {
	d := p.window()
	evs := p.events
	var out []Gap
	for i := 0; i < len(evs); {
		j := i + 1
		for j < len(evs) && evs[j].hasTime && evs[j-1].hasTime && evs[j].at().Sub(evs[j-1].at()).Abs() <= d {
			j++
		}
		if g, ok := p.unorderedRun(evs[i:j], d); ok {
			out = append(out, g)
		}
		i = j
	}
	return out
}

func (p *pipeline) unorderedRun(run []*ev, d time.Duration) (Gap, bool) {
	var hosts, sources []string
	free := false
	for i, a := range run {
		if a.inferred {
			continue
		}
		if !slices.Contains(hosts, a.host) {
			hosts = append(hosts, a.host)
		}
		sources = append(sources, p.src(a))
		for _, b := range run[i+1:] {
			if !b.inferred && a.host != b.host && !causallyBefore(a, b, run) {
				free = true
			}
		}
	}
	if len(hosts) < 2 || !free {
		return Gap{}, false
	}
	near := "have the same time"
	if d > 0 {
		near = "lie within " + d.String() + " of each other"
	}
	words := fmt.Sprintf("%d events of %s %s: the logs do not say their order", len(sources), strings.Join(hosts, ", "), near)
	if p.im.opt.Explore {
		words += "; the orderings the clocks allow try every one"
	} else {
		words += "; they are replayed in this order (--skew tries every order)"
	}
	return Gap{Kind: "unordered", Sources: sources, Words: words}, true
}

// causallyBefore reports whether b must follow a: b is a's deliver or
// the use of a's grant, or follows such an event on its own host.
func causallyBefore(a, b *ev, run []*ev) bool {
	for _, c := range run[slices.Index(run, a):] {
		if c.host != b.host || slices.Index(run, c) > slices.Index(run, b) {
			continue
		}
		if c.send == a || c.grant == a || (c.send != nil && c.send.host == a.host && slices.Index(run, c.send) >= slices.Index(run, a)) {
			return true
		}
	}
	return false
}

// after is the partial order the clocks allow, for lab.ExploreOptions:
// each host's order; between hosts, the order of two events more than
// the skew apart (shifted times); an acquire before each write or send
// of its actor carrying its token. An inferred event is ordered only by
// its own edges. The model itself puts a deliver after its send.
func (p *pipeline) after() [][]int {
	evs := p.events
	idx := map[*ev]int{}
	for i, e := range evs {
		idx[e] = i + 1
	}
	skew := p.im.opt.Skew
	out := make([][]int, len(evs))
	add := func(i int, j int) {
		if j > 0 && j < i+1 && !slices.Contains(out[i], j) {
			out[i] = append(out[i], j)
		}
	}
	last := map[string]int{} // host to the 1-based index of its latest event
	for i, e := range evs {
		if e.inferred {
			for _, a := range e.after {
				add(i, idx[a])
			}
			if e.kind == lab.Send {
				for k := i - 1; k >= 0; k-- {
					if !evs[k].inferred && who(evs[k]) == who(e) {
						add(i, k+1)
						break
					}
				}
			}
			continue
		}
		if j, ok := last[e.host]; ok {
			add(i, j)
		}
		for _, h := range p.hosts {
			if h == e.host || !e.hasTime {
				continue
			}
			for k := i - 1; k >= 0; k-- {
				f := evs[k]
				if f.host == h && !f.inferred && f.hasTime && e.at().Sub(f.at()) > skew {
					add(i, k+1)
					break
				}
			}
		}
		if e.grant != nil {
			add(i, idx[e.grant])
		}
		last[e.host] = i + 1
	}
	// An inferred event precedes the line that forced it.
	for i, e := range evs {
		if e.inferred && e.before != nil {
			add(idx[e.before]-1, i+1)
		}
	}
	return out
}
