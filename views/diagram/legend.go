package diagram

// legendKey is a sign the legend may need to explain.
type legendKey uint8

const (
	legendLease legendKey = iota
	legendGhost
	legendForgotten
	legendPause
	legendToken
	legendFlight
	legendRefused
	legendCrash
	legendViolation
	legendObserved
	numLegend
)

// legendText is the legend's word for each sign.
var legendText = [numLegend]string{
	legendLease:     "lease held",
	legendGhost:     "lease expired, worker unaware",
	legendForgotten: "lease forgotten by a restart of the lease service, worker unaware",
	legendPause:     "paused",
	legendToken:     "fencing token",
	legendFlight:    "request in flight",
	legendRefused:   "refused",
	legendCrash:     "crash",
	legendViolation: "invariant violated, tinted by its class",
	legendObserved:  "logs: what the logs say the resource did (applied is the model's accepted)",
}

// longDiagram is the number of steps from which the actors' names are
// repeated at the foot, for a reader who has scrolled down.
const longDiagram = 16

// footer is the final value of each resource, then a legend of the signs
// this diagram uses; it fixes the diagram's height.
func (g *grid) footer() []shape {
	y := g.bottom
	out := []shape{
		{kind: shLine, x1: 0, y1: y, x2: g.width, y2: y, stroke: colRule, width: "1"},
		{kind: shText, x1: stepNoX, y1: y + 22, text: "final", fill: colMuted, size: 12, bold: true, anchor: "end"},
	}
	var tokens map[string]*int64
	if n := len(g.t.Steps); n > 0 {
		tokens = g.t.Steps[n-1].Outcomes.Of(g.p).Tokens
	}
	for k, name := range g.resources {
		v, sub := "empty", ""
		if fv := g.t.Summary[g.p].Final[name]; fv != nil {
			v, sub = clip(*fv, (g.gap()-10)/8), "no token"
		}
		if tk := tokens[name]; tk != nil {
			sub = "token " + token(tk)
		}
		out = append(out, shape{kind: shText, x1: g.resX[k], y1: y + 22, text: v, fill: colInk, bold: true, anchor: "middle"})
		if sub != "" {
			out = append(out, shape{kind: shText, x1: g.resX[k], y1: y + 38, text: sub, fill: colMuted, size: 12, anchor: "middle"})
		}
	}
	if len(g.t.Steps) >= longDiagram { // name the lanes again at the foot
		for k, a := range g.actors {
			out = append(out, g.actorPill(a, g.actorX[k], y+6)...)
		}
	}
	out, bottom := g.legend(out, y+52)
	g.height = bottom + 8
	return out
}

// legend lays the used signs out in rows from top; it returns the bottom.
func (g *grid) legend(out []shape, top int) ([]shape, int) {
	x, y, any := 12, top+12, false
	for k := range numLegend {
		if !g.used[k] {
			continue
		}
		w := 30 + textW(legendText[k], 12, false) + 22
		if x+w > g.width-12 && x > 12 {
			x, y = 12, y+24
		}
		if k == legendViolation { // in the colours of this diagram's worst class
			c := classColours(worstOf(g.t.Summary[g.p].Violations))
			out = append(out, shape{kind: shRect, x1: x, y1: y - 9, x2: 24, y2: 18, fill: c.wash},
				shape{kind: shRect, x1: x, y1: y - 9, x2: 5, y2: 18, fill: c.line})
		} else {
			out = append(out, legendSign(k, x, y)...)
		}
		out = append(out, shape{kind: shText, x1: x + 30, y1: y + 4, text: legendText[k], fill: colInk, size: 12})
		x += w
		any = true
	}
	if !any {
		return out, top
	}
	return out, y + 14
}

// legendSign draws sign k in a 24-unit box from x, centred on y.
func legendSign(k legendKey, x, y int) []shape {
	c := actorPalette[0]
	switch k {
	case legendLease:
		return []shape{{kind: shRect, x1: x + 8, y1: y - 9, x2: 9, y2: 18, fill: c.fill, stroke: c.line, width: "1"}}
	case legendGhost:
		return []shape{{kind: shRect, x1: x + 8, y1: y - 9, x2: 9, y2: 18, fill: colWhite, stroke: c.line, width: "1.5", dash: "4 3"}}
	case legendForgotten:
		return append([]shape{
			{kind: shRect, x1: x + 8, y1: y - 9, x2: 9, y2: 9, fill: c.fill, stroke: c.line, width: "1"},
			{kind: shRect, x1: x + 8, y1: y, x2: 9, y2: 9, fill: colWhite, stroke: c.line, width: "1.5", dash: "4 3"},
		}, cutSign(x+12, y)...)
	case legendPause:
		return []shape{{kind: shRect, x1: x, y1: y - 9, x2: 24, y2: 18, r: 3, fill: colPause, stroke: colPauseLine, width: "1", dash: "3 3"}}
	case legendToken:
		return chip(x+12, y, "41", c.line, colWhite)
	case legendFlight:
		return arrow(x, y-9, x+24, y+9, c.line, "2", "")
	case legendRefused:
		bar := shape{kind: shLine, x1: x + 2, y1: y - 7, x2: x + 2, y2: y + 7, stroke: colBad, width: "2.5"}
		return append(arrow(x+24, y, x+4, y, colBad, "1.75", "4 3"), bar)
	case legendCrash:
		return cross(x+12, y, 7, colInk, "3")
	case legendViolation:
		return []shape{{kind: shRect, x1: x, y1: y - 9, x2: 24, y2: 18, fill: colViolBg},
			{kind: shRect, x1: x, y1: y - 9, x2: 5, y2: 18, fill: colViol}}
	}
	return nil
}
