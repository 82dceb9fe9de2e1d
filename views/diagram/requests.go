package diagram

import (
	"strings"
	"unicode/utf8"

	"fencelab/lab"
)

// write is an arrow straight to the resource, ending in the decision.
func (g *grid) write(i int, bg string) []group {
	st, o := g.t.Steps[i], g.outcome(i)
	if o.Decision == lab.Aborted {
		return []group{g.unsent(i, st.Event.Actor, o.Decision, valueOf(st.Event), bg)}
	}
	ax, rx, y := g.xOfActor(st.Event.Actor), g.xOfResource(st.Event.Resource), g.mid(i)
	c := g.colour(st.Event.Actor)
	shapes := arrow(ax+6, y, rx-11, y, c.line, "2.25", "")
	shapes = append(shapes, g.requestLabel(ax, y+5, min(rx-28, g.room(ax)), st, c, bg, true)...)
	shapes = append(shapes, endMark(o.Decision, rx, y, bg)...)
	return append([]group{{class: "arrow write " + string(o.Decision), shapes: shapes}}, g.staleNote(i, rx, bg)...)
}

// staleNote marks, above its arrow's end, an rmw write that was stale when
// decided, in words: "stale: read v0, now v1" (model 3). A fresh or plain
// write gets none.
func (g *grid) staleNote(i, rx int, bg string) []group {
	f, ok := g.fresh[i]
	if !ok || !f.Stale {
		return nil
	}
	text := f.Describe()
	tip := f.By + "'s write landed since " + g.t.Steps[i].Event.Actor + " read the resource: this value was computed without it"
	if e := g.t.Steps[i].Event; e.Kind != lab.Write {
		tip = f.By + "'s write landed since the writer read the resource: this value was computed without it"
	}
	y := g.mid(i)
	stale := func(y int, text string) shape {
		return shape{kind: shText, x1: rx - 16, y1: y, text: text, fill: colWarn, bold: true, size: 12, anchor: "end", halo: bg}
	}
	shapes := []shape{stale(y-9, text)}
	if head, tail, ok := strings.Cut(text, ", "); ok && textW(text, 12, true) > rx-16-g.laneLeftOf(rx)-10 {
		shapes = []shape{stale(y-9, head+","), stale(y+17, tail)} // above and below the arrow, clear of the lane before
	}
	return []group{{class: "stale", tip: tip, shapes: shapes}}
}

// laneLeftOf is the x of the nearest lane left of x.
func (g *grid) laneLeftOf(x int) int {
	left := leaseX
	for _, lanes := range [][]int{g.actorX, g.resX} {
		for _, lx := range lanes {
			if lx < x {
				left = max(left, lx)
			}
		}
	}
	return left
}

// requestLabel is the token chip and the value, from just right of the
// actor's lane; baseline y, clipped before limit.
func (g *grid) requestLabel(ax, y, limit int, st lab.Step, c actorColour, bg string, onLine bool) []shape {
	t := "no token"
	if st.Token != nil {
		t = token(st.Token)
	}
	g.used[legendToken] = true
	w := chipW(t)
	out := chip(ax+14+w/2, y-5, t, c.line, colWhite)
	v := valueOf(st.Event)
	if st.Event.Kind == lab.Send {
		v = st.Event.ID + ": " + v
	}
	x := ax + 14 + w + 6
	if n := (limit - x) / 7; n >= 3 {
		v = clip(v, n)
		if onLine { // hide the arrow's line behind the words, spaces too
			w := min(limit-x, utf8.RuneCountInString(v)*13/2) + 5
			out = append(out, shape{kind: shRect, x1: x - 3, y1: y - 12, x2: w, y2: 16, fill: orWhite(bg)})
		}
		out = append(out, label(x, y, v, colInk, false, bg))
	}
	return out
}

// send labels the request where it leaves; its arrow is drawn at its
// deliver, slanting down through the steps it spent in flight.
func (g *grid) send(i int, bg string) []group {
	st, o := g.t.Steps[i], g.outcome(i)
	if o.Decision == lab.Aborted {
		return []group{g.unsent(i, st.Event.Actor, o.Decision, st.Event.ID, bg)}
	}
	ax, rx, y := g.xOfActor(st.Event.Actor), g.xOfResource(st.Event.Resource), g.mid(i)
	c := g.colour(st.Event.Actor)
	shapes := []shape{{kind: shCircle, x1: ax, y1: y, r: 4, fill: c.line}}
	shapes = append(shapes, g.requestLabel(ax, y-4, min(rx-28, g.room(ax)), st, c, bg, false)...)
	if g.requests[st.Event.ID].Decided < 0 {
		shapes = append(shapes, arrow(ax+5, y+3, ax+44, y+15, c.line, "2", "4 3")...)
		shapes = append(shapes, shape{kind: shText, x1: ax + 50, y1: y + 18, text: "never delivered",
			fill: colMuted, size: 12, italic: true, halo: bg})
	}
	return []group{{class: "send", shapes: shapes}}
}

// deliver is the request's arrow from its send to the resource, slanted
// when it was in flight across other steps.
func (g *grid) deliver(i int, bg string) []group {
	j, o := g.sender(i), g.outcome(i)
	if j < 0 {
		return g.mark(i, bg)
	}
	se := g.t.Steps[j].Event
	if o.Decision == lab.Dropped {
		return []group{g.unsent(i, se.Actor, o.Decision, se.ID, bg)}
	}
	ax, rx, y0, y := g.xOfActor(se.Actor), g.xOfResource(se.Resource), g.mid(j), g.mid(i)
	x2, y2 := toward(ax+5, y0, rx, y, 10)
	a := arrow(ax+5, y0, x2, y2, g.colour(se.Actor).line, "2.25", "")
	g.flights = append(g.flights, group{class: "flight", shapes: a[:1]}) // under every band's labels
	shapes := append(a[1:], endMark(o.Decision, rx, y, bg)...)
	g.used[legendFlight] = true
	return append([]group{{class: "arrow write " + string(o.Decision) + " delayed", shapes: shapes}}, g.staleNote(i, rx, bg)...)
}

// commit applies a request checked earlier: a dashed bracket on the
// resource's lane from the check to the write, the window of the race.
func (g *grid) commit(i int, bg string) []group {
	j, o := g.sender(i), g.outcome(i)
	k := g.requests[g.t.Steps[i].Event.Request].Decided // a sender was found, so the request is there
	if j < 0 || o.Decision != lab.Applied || k < 0 {
		return g.mark(i, bg)
	}
	rx, y0, y := g.xOfResource(g.t.Steps[j].Event.Resource), g.mid(k), g.mid(i)
	fx, fy0, fy := float64(rx), float64(y0), float64(y)
	curve := []point{{fx - 10, fy0}, {fx - 46, fy0}, {fx - 46, fy}, {fx - 24, fy}}
	flight := shape{kind: shPath, pts: curve, stroke: colInfo, width: "2", dash: "5 3"}
	g.flights = append(g.flights, group{class: "flight", shapes: []shape{flight}})
	shapes := arrow(rx-26, y, rx-11, y, colInfo, "2", "")
	shapes = append(shapes, note(rx-50, y+5, "commit "+g.t.Steps[i].Event.Request, "end", bg))
	shapes = append(shapes, endMark(o.Decision, rx, y, bg)...)
	return append([]group{{class: "arrow write applied commit", shapes: shapes}}, g.staleNote(i, rx, bg)...)
}

// unsent marks at the worker's end a request that never reached the
// resource: aborted by the worker's check, or dropped at its deliver.
func (g *grid) unsent(i int, actor string, d lab.Decision, what, bg string) group {
	ax, y := g.xOfActor(actor), g.mid(i)
	shapes := []shape{{kind: shLine, x1: ax + 6, y1: y, x2: ax + 18, y2: y, stroke: g.colour(actor).line, width: "2.25"}}
	shapes = append(shapes, endMark(d, ax+28, y, bg)...)
	x := ax + 50 + textW(string(d), 13, true)
	if n := (g.room(ax) - x) / 7; n >= 3 && what != "" {
		shapes = append(shapes, note(x, y+5, clip(what, n), "", bg))
	}
	return group{class: string(d), shapes: shapes}
}

// mark is an event that sends nothing: a word beside its lane, and for
// some a sign (the end of a lease, a crash, a restart).
func (g *grid) mark(i int, bg string) []group {
	st := g.t.Steps[i]
	e, y := st.Event, g.mid(i)
	x := g.xOfActor(e.Actor)
	var shapes []shape
	text := string(e.Kind)
	switch e.Kind {
	case lab.Expire:
		c := g.colour(e.Actor)
		shapes = append(shapes, shape{kind: shLine, x1: x - 9, y1: y, x2: x + 10, y2: y, stroke: c.line, width: "3"})
		text = "lease " + token(g.walk.expired[i]) + " expires"
	case lab.Crash:
		shapes = append(shapes, cross(x, y, 8, colInk, "3.5")...)
		g.used[legendCrash] = true
	case lab.Restart:
		if e.Scope != "" {
			return g.scopeRestart(i, bg)
		}
		x = g.xOfResource(e.Resource)
		shapes = append(shapes, restartSign(x, y)...)
		if r := g.s.Resources[e.Resource]; r.Remember == lab.Memory && r.Fencing {
			text = "restart: forgets its token"
		}
	case lab.Deliver, lab.Commit:
		if j := g.sender(i); j >= 0 {
			x = g.xOfResource(g.t.Steps[j].Event.Resource)
		}
		text += " " + e.Request + ": no effect"
	}
	// An imported timeline marks what the logs imply but do not log (an
	// expiry no line shows) and what it computed (a pause from its
	// duration): the picture must not draw them as logged.
	switch {
	case strings.HasPrefix(e.Note, "inferred: "):
		text += " (inferred)"
	case strings.HasPrefix(e.Note, "computed: "):
		text += " (computed)"
	}
	shapes = append(shapes, note(x+20, y+5, text, "", bg))
	return []group{{class: "mark " + string(e.Kind), shapes: shapes}}
}

// scopeRestart cuts the lease service's lane (model 3) and names, on each
// worker's lane, the lease it forgot: the bar there ends in a cut.
func (g *grid) scopeRestart(i int, bg string) []group {
	y := g.mid(i)
	text := "restart: durable"
	if g.s.Scopes[g.t.Steps[i].Event.Scope].Remember == lab.Memory {
		text = "restart: forgets"
	}
	shapes := append(restartSign(leaseX, y), note(leaseX+20, y+5, text, "", bg))
	for _, f := range g.walk.forgotten[i] {
		shapes = append(shapes, note(g.xOfActor(f.Actor)+20, y+5, "lease "+itoa64(f.Token)+" forgotten", "", bg))
	}
	return []group{{class: "mark restart scope", shapes: shapes}}
}

// restartSign cuts the resource's lane with two slashes.
func restartSign(x, y int) []shape {
	return []shape{
		{kind: shRect, x1: x - 11, y1: y - 4, x2: 22, y2: 8, fill: colWhite},
		{kind: shLine, x1: x - 10, y1: y + 1, x2: x + 10, y2: y - 7, stroke: colInk, width: "2.5"},
		{kind: shLine, x1: x - 10, y1: y + 7, x2: x + 10, y2: y - 1, stroke: colInk, width: "2.5"},
	}
}

// valueOf is the value an event carries, or "".
func valueOf(e lab.Event) string {
	if e.Value == nil {
		return ""
	}
	return *e.Value
}
