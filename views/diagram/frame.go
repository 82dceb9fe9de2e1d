package diagram

import (
	"slices"
	"strings"

	"fencelab/lab"
)

// header is the title (standalone only), the caption naming the policy
// and its verdict, and a label on top of every lane.
func (g *grid) header() []shape {
	var out []shape
	y := 0
	if g.standalone {
		out = append(out, shape{kind: shText, x1: 12, y1: 24, text: clip(g.s.Title, (g.width-24)/10), fill: colInk, size: 17, bold: true})
		y = headTitleH
	}
	caption := "Policy " + string(g.p) + " · " + g.verdict()
	if g.imported != nil {
		caption = g.importedCaption()
	}
	out = append(out, shape{kind: shText, x1: 12, y1: y + 18, text: clip(caption, (g.width-24)/8), fill: colInk, size: 14, bold: true})
	y += captionH
	out = append(out, shape{kind: shText, x1: leaseX, y1: y + 17, text: "lease service", fill: colInk, bold: true, anchor: "middle"})
	for k, a := range g.actors {
		out = append(out, g.actorPill(a, g.actorX[k], y)...)
	}
	for k, name := range g.resources {
		out = append(out, g.resourceLabel(name, g.resX[k], y)...)
	}
	if g.imported != nil {
		out = append(out, g.observedHead(y)...)
	}
	return out
}

// verdict sums up the policy's violations for the caption.
func (g *grid) verdict() string { return verdictOf(g.t.Summary[g.p].Violations) }

// verdictOf is "no invariant violated" or "3 violations at step 8".
func verdictOf(vs []lab.Violation) string {
	if len(vs) == 0 {
		return "no invariant violated"
	}
	var steps []string
	for _, v := range vs {
		if s := itoa(v.Step); !slices.Contains(steps, s) {
			steps = append(steps, s)
		}
	}
	where := "at step " + steps[0]
	if len(steps) > 1 {
		where = "at steps " + strings.Join(steps, ", ")
	}
	out := plural(len(vs), "violation") + " " + where
	if w := worstOf(vs); w != "" {
		out = "worst " + string(w) + ": " + out
	}
	return out
}

func (g *grid) actorPill(a string, x, y int) []shape {
	c := g.colour(a)
	text := clip(a, (g.gap()-16)/8)
	w := textW(text, 13, true) + 20
	return []shape{
		{kind: shRect, x1: x - w/2, y1: y + 1, x2: w, y2: 22, r: 11, fill: c.fill},
		{kind: shText, x1: x, y1: y + 17, text: text, fill: c.ink, bold: true, anchor: "middle"},
	}
}

// resourceLabel names a resource and says when it is not the usual kind.
func (g *grid) resourceLabel(name string, x, y int) []shape {
	out := []shape{{kind: shText, x1: x, y1: y + 17, text: clip(name, (g.gap()-10)/8), fill: colInk, bold: true, anchor: "middle"}}
	r, ok := g.s.Resources[name]
	sub := ""
	switch {
	case ok && !r.Fencing:
		sub = "takes no token"
	case ok && r.Remember == lab.Memory:
		sub = "forgets on restart"
	}
	if sub != "" {
		out = append(out, shape{kind: shText, x1: x, y1: y + 33, text: sub, fill: colMuted, size: 12, anchor: "middle"})
	}
	return out
}

// gap is the distance between neighbouring lanes.
func (g *grid) gap() int {
	if len(g.actorX) > 0 {
		return g.actorX[0] - leaseX
	}
	return g.resX[0] - leaseX
}

// laneLines draws the lanes: thin for the lease service and the actors
// (ending at a crash), thick for the resources.
func (g *grid) laneLines() []group {
	top := g.top - 8
	out := []group{{class: "lane lease-service", shapes: []shape{
		{kind: shLine, x1: leaseX, y1: top, x2: leaseX, y2: g.bottom, stroke: colLease, width: "2"},
	}}}
	for k, a := range g.actors {
		end, ok := g.walk.crashY[a]
		if !ok {
			end = g.bottom
		}
		out = append(out, group{class: "lane actor-lane", shapes: []shape{
			{kind: shLine, x1: g.actorX[k], y1: top, x2: g.actorX[k], y2: end, stroke: g.colour(a).line, width: "2"},
		}})
	}
	for k := range g.resources {
		out = append(out, group{class: "lane resource", shapes: []shape{
			{kind: shLine, x1: g.resX[k], y1: top, x2: g.resX[k], y2: g.bottom, stroke: colResource, width: "4"},
		}})
	}
	return out
}

// describe says in words what the picture shows, for screen readers.
func (g *grid) describe() string {
	var b strings.Builder
	if g.imported != nil {
		b.WriteString("The imported timeline, replayed under policy " + string(g.p) + "; the column on the right says " +
			"what the logs say the resource did at each step, and whether " + string(g.p) + " would have done the same. ")
		if g.imported.Behaved != "" {
			b.WriteString("The resource behaved like " + string(g.imported.Behaved) + ". ")
		}
	}
	b.WriteString("Space-time diagram under policy " + string(g.p) + ". Time runs down, one band per step, " +
		plural(len(g.t.Steps), "step") + ". Lanes, left to right: the lease service")
	if len(g.actors) > 0 {
		b.WriteString("; " + plural(len(g.actors), "worker") + ", " + strings.Join(g.actors, ", "))
	}
	b.WriteString("; " + plural(len(g.resources), "resource") + ", " + clip(strings.Join(g.resources, ", "), 300) + ". ")
	vs := g.t.Summary[g.p].Violations
	if len(vs) == 0 {
		b.WriteString("No invariant is violated.")
	}
	for k, v := range vs {
		if k == 0 {
			b.WriteString("Violated: ")
		} else {
			b.WriteString(", ")
		}
		b.WriteString(string(v.Kind) + " at step " + itoa(v.Step))
		if v.Class != "" {
			b.WriteString(" (" + string(v.Class) + ")")
		}
	}
	if len(vs) > 0 {
		b.WriteString(".")
	}
	for _, name := range g.resources {
		v := "empty"
		if fv := g.t.Summary[g.p].Final[name]; fv != nil {
			v = clip(*fv, 80)
		}
		b.WriteString(" Final value of " + name + ": " + v + ".")
	}
	return b.String()
}
