package diagram

import (
	"fmt"
	"io"
	"slices"

	"fencelab/lab"
	"fencelab/views/export"
)

// The comparison card is the link preview of a run: the failure and the
// fix side by side, each as its result lane in large type (the writes
// that reached a resource, each with its token chip and its outcome, and
// the final value), so that chips and outcomes read at 400 pixels wide,
// where a whole diagram's 13px labels would shrink to 4.

// Comparison geometry, in pixels of the 1200×630 card.
const (
	cmpTop    = 150 // where the panels start, under the title
	cmpPanelW = (CardWidth - 3*cardMargin) / 2
	cmpRowH   = 54
	cmpRows   = 6 // arrivals shown per panel; earlier ones are summed up
	cmpText   = 26
)

// ComparePolicies are the failure and the fix a card compares: the
// unfenced policy, and the first policy that keeps the data (no corrupting
// violation) among prefer (the policies the page shows) and then all of
// lab.Policies. A single policy preferred is the fix whatever it does.
// The caller handles a link that names two policies: those are the two.
func ComparePolicies(t *lab.Trace, prefer []lab.Policy) (failure, fix lab.Policy) {
	failure = lab.Unfenced
	if len(prefer) == 1 && prefer[0] != failure {
		return failure, prefer[0]
	}
	for _, p := range append(slices.Clone(prefer), lab.Policies()...) {
		if p != failure && t.Summary[p].Worst() != lab.Corrupting {
			return failure, p
		}
	}
	return failure, lab.Policies()[1]
}

// ComparePNG writes the comparison card of policies a and b as a PNG.
func ComparePNG(w io.Writer, s *lab.Scenario, t *lab.Trace, a, b lab.Policy) error {
	if _, err := goFonts(); err != nil {
		return fmt.Errorf("load fonts: %w", err)
	}
	c := newCanvas(CardWidth, CardHeight)
	defer c.release()
	title := shape{kind: shText, x1: cardMargin, y1: 108, text: clip(s.Title, lab.MaxTitle), fill: colInk, size: 40, bold: true}
	c.fit(&title, 28)
	c.shapes([]shape{
		{kind: shRect, x1: 0, y1: 0, x2: CardWidth / 2, y2: 10, fill: verdictColour(t, a)},
		{kind: shRect, x1: CardWidth / 2, y1: 0, x2: CardWidth / 2, y2: 10, fill: verdictColour(t, b)},
		{kind: shText, x1: cardMargin, y1: 58, text: "fencelab · leases and fencing tokens", fill: colMuted, size: 22},
		title,
		{kind: shLine, x1: CardWidth / 2, y1: cmpTop, x2: CardWidth / 2, y2: CardHeight - 24, stroke: colRule, width: "2"},
	})
	c.panel(s, t, a, cardMargin)
	c.panel(s, t, b, CardWidth/2+cardMargin/2)
	return encodePNG(w, c.img)
}

// verdictColour is the strip's colour over a policy's panel.
func verdictColour(t *lab.Trace, p lab.Policy) string {
	if len(t.Summary[p].Violations) > 0 {
		return colViol
	}
	return colGood
}

// verdictWords is a policy's verdict in a few words, as the pages say it.
func verdictWords(t *lab.Trace, p lab.Policy) string {
	if w := export.ClassWords(t.Summary[p].Worst()); w != "" {
		return w
	}
	if n := len(t.Summary[p].Violations); n > 0 {
		return plural(n, "violation")
	}
	return "keeps the data: no invariant violated"
}

// arrival is a write that reached a resource under a policy.
type arrival struct {
	token, what string
	accepted    bool
	violates    bool // an invariant breaks at this step
}

// arrivals lists the writes that reached a resource under p, in order.
func arrivals(s *lab.Scenario, t *lab.Trace, p lab.Policy) []arrival {
	var out []arrival
	for _, st := range t.Steps {
		d := st.Outcomes.Of(p).Decision
		if d != lab.Accepted && d != lab.Rejected {
			continue
		}
		violates := slices.ContainsFunc(t.Summary[p].Violations, func(v lab.Violation) bool { return v.Step == st.Index })
		out = append(out, arrival{token: token(st.Token), what: arrivalText(s, st.Event), accepted: d == lab.Accepted, violates: violates})
	}
	return out
}

// arrivalText is who wrote what: "A old-result"; a delivered request
// says what its send carried.
func arrivalText(s *lab.Scenario, e lab.Event) string {
	if e.Request != "" {
		if i := slices.IndexFunc(s.Events, func(x lab.Event) bool { return x.ID == e.Request }); i >= 0 {
			e = s.Events[i]
		}
	}
	if e.Value != nil {
		return e.Actor + " " + *e.Value
	}
	return e.Actor + " " + string(e.Kind)
}

// panel draws one policy's half of the comparison card at x.
func (c *canvas) panel(s *lab.Scenario, t *lab.Trace, p lab.Policy, x int) {
	right := x + cmpPanelW
	verdict := shape{kind: shText, x1: x, y1: cmpTop + 66, text: verdictWords(t, p), fill: verdictColour(t, p), size: 28, bold: true}
	c.fitIn(&verdict, cmpPanelW, 20)
	c.shapes([]shape{{kind: shText, x1: x, y1: cmpTop + 30, text: "Policy " + string(p), fill: colInk, size: 30, bold: true}, verdict})
	list := arrivals(s, t, p)
	y := cmpTop + 96
	if len(list) > cmpRows {
		c.shape(&shape{kind: shText, x1: x, y1: y + 30, text: plural(len(list)-cmpRows+1, "earlier write") + " …", fill: colMuted, size: cmpText})
		list, y = list[len(list)-cmpRows+1:], y+cmpRowH
	}
	for _, a := range list {
		c.arrivalRow(a, x, right, y)
		y += cmpRowH
	}
	c.final(t, p, x, CardHeight-30)
}

// arrivalRow draws one write: its token chip, who wrote what, and whether
// the resource took it.
func (c *canvas) arrivalRow(a arrival, x, right, y int) {
	// Green or red says whether the resource did right, not the word: a
	// rejected stale write is the fix at work.
	outcome, col := "rejected", colGood
	if a.accepted {
		outcome = "accepted"
	}
	if a.violates {
		col = colBad
	}
	chipW := 22 + 16*len(a.token)
	what := shape{kind: shText, x1: x + chipW + 14, y1: y + 34, text: a.what, fill: colInk, size: cmpText}
	c.fitIn(&what, right-150-what.x1, 18)
	c.shapes([]shape{
		{kind: shRect, x1: x, y1: y + 6, x2: chipW, y2: 38, r: 8, fill: colWhite, stroke: colInfo, width: "3"},
		{kind: shText, x1: x + chipW/2, y1: y + 34, text: a.token, fill: colInfo, size: cmpText, bold: true, anchor: "middle"},
		what,
		{kind: shText, x1: right, y1: y + 34, text: outcome, fill: col, size: cmpText, bold: true, anchor: "end"},
	})
}

// final draws the resources' final values under p, a line each, the
// last at y.
func (c *canvas) final(t *lab.Trace, p lab.Policy, x, y int) {
	keys := sortedKeys(t.Summary[p].Final)
	for i, res := range keys {
		v := "empty"
		if f := t.Summary[p].Final[res]; f != nil {
			v = *f
		}
		s := shape{kind: shText, x1: x, y1: y - 36*(len(keys)-1-i), text: "final " + res + " = " + v, fill: colInk, size: cmpText, bold: true}
		c.fitIn(&s, cmpPanelW, 18)
		c.shape(&s)
	}
}

// fitIn is fit for a box room pixels wide.
func (c *canvas) fitIn(s *shape, room, least int) {
	for ; s.size > least && c.measure(s) > float64(room); s.size-- {
	}
	for n := len([]rune(s.text)) - 1; n > 4 && c.measure(s) > float64(room); n-- {
		s.text = clip(s.text, n)
	}
}

func sortedKeys(m map[string]*string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// CompareAlt describes the comparison card in words, for its alt text.
func CompareAlt(s *lab.Scenario, t *lab.Trace, a, b lab.Policy) string {
	return "“" + clip(s.Title, lab.MaxTitle) + "” under " + string(a) + " and " + string(b) + " side by side: " +
		string(a) + " " + verdictWords(t, a) + "; " + string(b) + " " + verdictWords(t, b)
}
