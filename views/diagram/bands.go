package diagram

import (
	"strings"

	"fencelab/lab"
)

// drawBands lays out one band per step: its wash, its step number, the
// violations it names, and what happened in it.
func (g *grid) drawBands() []band {
	bands := make([]band, len(g.t.Steps))
	for i, st := range g.t.Steps {
		b := band{step: st.Index, y: g.bandY[i], h: g.bandH[i], class: "band", fill: g.bandFill(i)}
		vs := g.violations[st.Index]
		switch {
		case len(vs) > 0:
			b.class = "band violated"
		case g.outcome(i).Decision == lab.Skipped:
			b.class, b.faint = "band skipped", true
		}
		b.tip = g.tip(i)
		b.groups = append(b.groups, g.stepNumber(i, b.fill))
		if len(vs) > 0 {
			b.groups = append(b.groups, g.violationLabels(i, vs))
		}
		b.groups = append(b.groups, g.event(i, b.fill)...)
		if g.imported != nil {
			if obs, ok := g.observedLabel(i, b.fill); ok {
				b.groups = append(b.groups, obs)
			}
		}
		bands[i] = b
	}
	return bands
}

// bandFill is the wash behind step i: tinted by the worst class where an
// invariant broke, every other band grey so the eye can follow a row across.
func (g *grid) bandFill(i int) string {
	switch vs := g.violations[g.t.Steps[i].Index]; {
	case len(vs) > 0:
		return classColours(worstOf(vs)).wash
	case i%2 == 1:
		return colBandAlt
	}
	return ""
}

// tip is a band's tooltip: the event, this policy's reason and the note;
// the marks in the band share it.
func (g *grid) tip(i int) string {
	st := g.t.Steps[i]
	parts := []string{"Step " + itoa(st.Index) + ":"}
	if st.Event.Actor != "" {
		parts = append(parts, st.Event.Actor)
	}
	parts = append(parts, clip(lab.DescribeEvent(st.Event), 240)+".")
	if j := g.sender(i); j >= 0 && st.Event.Kind == lab.Deliver {
		parts = append(parts, "Sent at step "+itoa(g.t.Steps[j].Index)+".")
	}
	parts = append(parts, clip(lab.ReasonWithDecision(g.outcome(i)), 240)+".")
	if st.Event.Note != "" {
		parts = append(parts, clip(st.Event.Note, lab.MaxNote))
	}
	if st.Warning != "" {
		parts = append(parts, "Warning: "+clip(st.Warning, 240))
	}
	return strings.Join(parts, " ")
}

// stepNumber is the step's number in the gutter; on a page it links to
// the step's row in the table.
func (g *grid) stepNumber(i int, bg string) group {
	n := g.t.Steps[i].Index
	grp := group{class: "step-no", shapes: []shape{
		{kind: shText, x1: stepNoX, y1: g.mid(i) + 5, text: itoa(n), fill: colMuted, bold: true, anchor: "end", halo: bg},
	}}
	if !g.standalone {
		grp.href = "#step-" + itoa(n)
	}
	return grp
}

// violationLabels marks a band at its left edge in the colour of its
// worst class and names, in the column on the right, each invariant broken
// at the step followed by its class in words.
func (g *grid) violationLabels(i int, vs []lab.Violation) group {
	g.used[legendViolation] = true
	y := g.bandY[i]
	out := []shape{{kind: shRect, x1: 0, y1: y, x2: 7, y2: g.bandH[i], fill: classColours(worstOf(vs)).line}}
	base := y + (g.bandH[i]-violLineH*len(vs))/2 + 13
	classX := 0 // the class words line up after the longest name in the band
	for _, v := range vs {
		classX = max(classX, g.violX+20+textW(string(v.Kind), 12, true)+6)
	}
	for k, v := range vs {
		yy := base + k*violLineH
		c := classColours(v.Class)
		x := g.violX + 20
		out = append(out,
			shape{kind: shPoly, pts: warnSign(g.violX+9, yy-5), fill: c.line},
			shape{kind: shText, x1: x, y1: yy, text: string(v.Kind), fill: c.ink, bold: true, size: 12},
		)
		if v.Class != "" {
			out = append(out, shape{kind: shText, x1: classX, y1: yy, text: string(v.Class), fill: c.ink, size: 11})
		}
	}
	return group{class: "violation", shapes: out}
}

// warnSign is a small triangle centred on (x,y).
func warnSign(x, y int) []point {
	fx, fy := float64(x), float64(y)
	return []point{{fx, fy - 6}, {fx + 6, fy + 5}, {fx - 6, fy + 5}}
}

// event draws what step i did under the policy.
func (g *grid) event(i int, bg string) []group {
	if g.outcome(i).Decision == lab.Skipped {
		return []group{g.skipped(i, bg)}
	}
	switch g.t.Steps[i].Event.Kind {
	case lab.Acquire:
		return g.acquire(i, bg)
	case lab.Renew:
		return g.renew(i, bg)
	case lab.Release:
		return g.release(i, bg)
	case lab.Check:
		return g.check(i, bg)
	case lab.Read:
		return g.read(i, bg)
	case lab.Write:
		return g.write(i, bg)
	case lab.Send:
		return g.send(i, bg)
	case lab.Deliver:
		return g.deliver(i, bg)
	case lab.Commit:
		return g.commit(i, bg)
	}
	return g.mark(i, bg)
}

// skipped names the step faintly where its actor (or resource) is.
func (g *grid) skipped(i int, bg string) group {
	e := g.t.Steps[i].Event
	x := g.xOfActor(e.Actor)
	switch {
	case e.Kind == lab.Restart:
		x = g.xOfResource(e.Resource)
	case e.Actor == "":
		if j := g.sender(i); j >= 0 {
			x = g.xOfResource(g.t.Steps[j].Event.Resource)
		}
	}
	return group{class: "skipped", shapes: []shape{
		{kind: shText, x1: x + 20, y1: g.mid(i) + 5, text: "skipped: " + string(e.Kind), fill: colMuted, italic: true, halo: bg},
	}}
}
