package diagram

import (
	"math"

	"fencelab/lab"
)

// acquire: a grant is an arrow from the lease service carrying the token;
// a refusal a short dashed arrow that stops at a bar.
func (g *grid) acquire(i int, bg string) []group {
	st := g.t.Steps[i]
	if g.outcome(i).Decision != lab.Granted {
		return []group{g.refused(i, "refused", bg)}
	}
	c, y := g.colour(st.Event.Actor), g.mid(i)
	text := token(st.Token)
	if len(g.scopes) > 1 {
		text = st.Event.Scope + " " + text
	}
	x2 := g.xOfActor(st.Event.Actor) - 6
	shapes := append(arrow(leaseX+4, y, x2, y, c.line, "2", ""), chip(x2-18-chipW(text)/2, y, text, c.line, colWhite)...)
	g.used[legendToken] = true
	out := []group{{class: "arrow grant", shapes: shapes}}
	if others := g.walk.split[i]; len(others) > 0 {
		out = append(out, g.splitNote(i, others, bg))
	}
	if g.p.Registers() {
		out = append(out, g.registers(i, text))
	}
	return out
}

// splitNote says, right of the new holder's lane, that a split grant left
// the other leases of the scope valid: two bars at once, in words.
func (g *grid) splitNote(i int, others []lab.ActorLease, bg string) group {
	ax, y := g.xOfActor(g.t.Steps[i].Event.Actor), g.mid(i)
	still := ""
	for k, o := range others {
		if k > 0 {
			still += ", "
		}
		still += o.Actor + "'s " + itoa64(o.Token)
	}
	n := max(4, (g.room(ax)-ax-14)/6)
	tip := "split brain: " + still + " still valid beside " + g.t.Steps[i].Event.Actor + "'s lease"
	return group{class: "split", tip: tip, shapes: []shape{
		{kind: shText, x1: ax + 14, y1: y - 6, text: "split grant", fill: colBad, bold: true, size: 12, halo: bg},
		{kind: shText, x1: ax + 14, y1: y + 12, text: clip(still+" still valid", n), fill: colMuted, size: 11, halo: bg},
	}}
}

// registers marks each fencing resource that a grant registers its token at.
func (g *grid) registers(i int, text string) group {
	y := g.mid(i)
	var shapes []shape
	for k, name := range g.resources {
		if r, ok := g.s.Resources[name]; ok && r.Fencing {
			x := g.resX[k]
			shapes = append(shapes,
				shape{kind: shLine, x1: x - 8, y1: y, x2: x + 8, y2: y, stroke: colInfo, width: "3"},
				shape{kind: shText, x1: x + 14, y1: y + 5, text: "registers " + text, fill: colInfo, size: 12, halo: g.bandFill(i)})
		}
	}
	return group{class: "register", tip: string(g.p) + ": the grant registers its token at every fencing resource", shapes: shapes}
}

// refused is a short dashed arrow from the actor towards the lease service.
func (g *grid) refused(i int, word, bg string) group {
	ax, y := g.xOfActor(g.t.Steps[i].Event.Actor), g.mid(i)
	x2 := max(leaseX+10, ax-72)
	shapes := arrow(ax-6, y, x2, y, colBad, "1.75", "4 3")
	shapes = append(shapes,
		shape{kind: shLine, x1: x2 - 2, y1: y - 7, x2: x2 - 2, y2: y + 7, stroke: colBad, width: "2.5"},
		shape{kind: shText, x1: (ax + x2) / 2, y1: y - 7, text: word, fill: colBad, bold: true, size: 12, anchor: "middle", halo: bg})
	g.used[legendRefused] = true
	return group{class: "arrow refused", shapes: shapes}
}

func (g *grid) renew(i int, bg string) []group {
	if g.outcome(i).Decision != lab.Granted {
		return []group{g.refused(i, "renew refused", bg)}
	}
	a := g.t.Steps[i].Event.Actor
	ax, y := g.xOfActor(a), g.mid(i)
	shapes := append(arrow(leaseX+4, y, ax-6, y, g.colour(a).line, "1.5", ""), note(ax-16, y-7, "renewed", "end", bg))
	return []group{{class: "arrow renew", shapes: shapes}}
}

func (g *grid) release(i int, bg string) []group {
	ax, y := g.xOfActor(g.t.Steps[i].Event.Actor), g.mid(i)
	shapes := append(arrow(ax-6, y, leaseX+4, y, colMuted, "1.5", ""), note(ax-16, y-7, "release "+token(g.walk.expired[i]), "end", bg))
	return []group{{class: "arrow release", shapes: shapes}}
}

// check is a dotted question to the lease service and the answer it got.
func (g *grid) check(i int, bg string) []group {
	ax, y := g.xOfActor(g.t.Steps[i].Event.Actor), g.mid(i)
	answer := "check: not valid"
	if g.walk.valid[i] {
		answer = "check: valid"
	}
	shapes := append(arrow(ax-6, y, leaseX+4, y, colMuted, "1.5", "2 3"), note(ax-16, y-7, answer, "end", bg))
	return []group{{class: "arrow check", shapes: shapes}}
}

// read is a dotted arrow from the only resource, with the value read.
func (g *grid) read(i int, bg string) []group {
	if len(g.resources) != 1 {
		return g.mark(i, bg)
	}
	ax, y, rx := g.xOfActor(g.t.Steps[i].Event.Actor), g.mid(i), g.resX[0]
	o := g.outcome(i)
	v := o.Values[g.resources[0]]
	head := "reads"
	if o.Versions != nil { // a read marks the version it saw (model 3)
		head = "reads v" + itoa(o.Versions[g.resources[0]])
	}
	text := head + ": empty"
	switch {
	case v == nil:
	case o.Versions != nil && textW(head+": "+*v, 12, false) <= g.room(ax)-ax-20:
		text = head + ": " + *v
	case o.Versions != nil:
		text = head + ": " + clip(*v, max(4, (g.room(ax)-ax-20-textW(head+": ", 12, false))/7))
	default:
		text = "reads " + clip(*v, max(4, (g.room(ax)-ax-70)/7))
	}
	shapes := append(arrow(rx-8, y, ax+8, y, colMuted, "1.5", "2 3"), note(ax+20, y-7, text, "", bg))
	return []group{{class: "arrow read", shapes: shapes}}
}

// note is a small annotation beside a lane or an arrow.
func note(x, y int, text, anchor, bg string) shape {
	return shape{kind: shText, x1: x, y1: y, text: text, fill: colMuted, size: 12, anchor: anchor, halo: bg}
}

// toward is the point d units short of (x2,y2) on the way from (x1,y1).
func toward(x1, y1, x2, y2 int, d float64) (int, int) {
	dx, dy := float64(x2-x1), float64(y2-y1)
	l := math.Hypot(dx, dy)
	if l <= d {
		return x1, y1
	}
	return x2 - int(math.Round(dx/l*d)), y2 - int(math.Round(dy/l*d))
}
