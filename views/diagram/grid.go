package diagram

import (
	"fencelab/lab"
)

// Geometry of the diagram, in SVG user units (pixels at 1x).
const (
	gutterW    = 52  // step numbers, left of the first lane
	stepNoX    = 40  // right edge of the step numbers
	leaseX     = 118 // the lease service's lane
	laneGap    = 160 // between lanes, before widening
	maxGap     = 220
	minWidth   = 880 // narrow diagrams spread their lanes to this width
	wordsW     = 104 // outcome words right of the last lane
	violW      = 240 // the column naming violated invariants and their classes
	bandH      = 38
	violLineH  = 17
	headTitleH = 34 // the scenario's title, standalone only
	captionH   = 26
	laneHeadH  = 48 // lane labels
)

// grid is the geometry every part of the layout shares: where each lane
// and band lies, and what the replay under the policy says about them.
type grid struct {
	s          *lab.Scenario
	t          *lab.Trace
	p          lab.Policy
	standalone bool

	actors    []string       // in order of first appearance, as in the table
	actorIdx  map[string]int // actor → position in actors
	resources []string       // in name order, as in the table
	scopes    []string
	actorX    []int
	resX      []int
	violX     int // x of the violations column; 0 without one
	obsX      int // x of the logs' column of an imported timeline; 0 without one

	imported *Imported // what the logs say, for an imported timeline; nil otherwise

	bandY      []int // per step: top of its band
	bandH      []int
	top        int // top of the first band
	bottom     int // bottom of the last band
	width      int
	height     int
	violations map[int][]lab.Violation     // step number → violations
	requests   map[string]lab.RequestSteps // request id → its send and the deliver that decided it
	fresh      map[int]lab.Freshness       // step position → what the rmw request it decided knew (model 3)
	used       map[legendKey]bool          // what the legend must explain
	flights    []group                     // lines that cross bands, drawn beneath them

	walk walk // leases, pauses and crashes, from the engine's states
}

// newGrid lays out the lanes: the actors named in order first (the
// editor's actor list, so lanes keep the cards' colours), then the rest in
// order of first appearance.
func newGrid(s *lab.Scenario, t *lab.Trace, p lab.Policy, standalone bool, order []string, im *Imported) *grid {
	g := &grid{s: s, t: t, p: p, standalone: standalone, actorIdx: map[string]int{}, used: map[legendKey]bool{}, imported: im}
	for _, a := range order {
		g.addActor(a)
	}
	for _, e := range s.Events {
		g.addActor(e.Actor)
	}
	for _, st := range t.Steps { // the same actors, unless a stored trace drifted
		g.addActor(st.Event.Actor)
	}
	g.resources = lab.ResourceNames(s, t)
	g.scopes = lab.SortedNames(s.Scopes)
	g.violations = map[int][]lab.Violation{}
	for _, v := range t.Summary[p].Violations {
		g.violations[v.Step] = append(g.violations[v.Step], v)
	}
	g.requests = lab.Requests(t, p)
	g.fresh = lab.RMWFreshness(t, p)
	g.placeLanes(anyViolations(t))
	g.placeBands()
	g.walk = walkSteps(g)
	return g
}

func (g *grid) addActor(a string) {
	if _, seen := g.actorIdx[a]; a != "" && !seen {
		g.actorIdx[a] = len(g.actors)
		g.actors = append(g.actors, a)
	}
}

// anyViolations reports whether some policy broke an invariant, so that
// every policy's diagram keeps the same width and switching does not jump.
func anyViolations(t *lab.Trace) bool {
	for _, sum := range t.Summary {
		if len(sum.Violations) > 0 {
			return true
		}
	}
	return false
}

// placeLanes puts the lease service left, then the actors, then the
// resources: grants flow right to the actors, writes right to the resources.
func (g *grid) placeLanes(violCol bool) {
	n := 1 + len(g.actors) + len(g.resources)
	right := wordsW
	if violCol {
		right += violW
	}
	gap := laneGap
	if natural := leaseX + (n-1)*gap + right; natural < minWidth && n > 1 {
		gap = min(maxGap, (minWidth-leaseX-right)/(n-1))
	}
	x := leaseX
	for range g.actors {
		x += gap
		g.actorX = append(g.actorX, x)
	}
	for range g.resources {
		x += gap
		g.resX = append(g.resX, x)
	}
	g.width = x + wordsW
	if violCol {
		g.violX = g.width
		g.width += violW
	}
	if g.imported != nil {
		g.obsX = g.width
		g.width += obsW
	}
	g.width = max(g.width, minWidth)
}

// placeBands stacks one band per step; a band naming several violated
// invariants grows to list them all.
func (g *grid) placeBands() {
	g.top = captionH + laneHeadH
	if g.standalone {
		g.top += headTitleH
	}
	y := g.top
	for _, st := range g.t.Steps {
		h := max(bandH, violLineH*len(g.violations[st.Index])+12)
		g.bandY = append(g.bandY, y)
		g.bandH = append(g.bandH, h)
		y += h
	}
	g.bottom = y
}

// mid is the y of step i's arrows.
func (g *grid) mid(i int) int { return g.bandY[i] + g.bandH[i]/2 }

// xOfActor is an actor's lane; the lease service's for an unknown actor.
func (g *grid) xOfActor(a string) int {
	if i, ok := g.actorIdx[a]; ok {
		return g.actorX[i]
	}
	return leaseX
}

// xOfResource is a resource's lane; the first resource's for an unknown name.
func (g *grid) xOfResource(r string) int {
	for i, name := range g.resources {
		if name == r {
			return g.resX[i]
		}
	}
	if len(g.resX) > 0 {
		return g.resX[0]
	}
	return leaseX
}

// room is where a label that starts right of x must end: before the next
// lane, so that it never hides a lease bar.
func (g *grid) room(x int) int {
	for _, lanes := range [][]int{g.actorX, g.resX} {
		for _, lx := range lanes {
			if lx > x {
				return lx - 10
			}
		}
	}
	return g.width - 8
}

// colour is an actor's palette entry.
func (g *grid) colour(a string) actorColour {
	if i, ok := g.actorIdx[a]; ok {
		return actorPalette[i%len(actorPalette)]
	}
	return actorColour{fill: colMuted, ink: "#ffffff", line: colMuted}
}

// outcome is step i's outcome under the diagram's policy.
func (g *grid) outcome(i int) lab.Outcome { return g.t.Steps[i].Outcomes.Of(g.p) }

// sender is the send (or write) step of a deliver or commit, or -1.
func (g *grid) sender(i int) int {
	if r, ok := g.requests[g.t.Steps[i].Event.Request]; ok {
		return r.Send
	}
	return -1
}
