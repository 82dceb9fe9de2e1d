package diagram

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"io"
	"slices"

	"fencelab/lab"
	"fencelab/views/export"
)

// The comparison card is the link preview of a run: the failure and the
// fix side by side, each its policy's name and verdict in large type over
// its space-time diagram, and its final value, as the single-policy card
// draws one.

// Comparison geometry, in pixels of the 1200×630 card.
const (
	cmpTop    = 150 // where the panels start, under the title
	cmpPanelW = (CardWidth - 3*cardMargin) / 2
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
	endA := c.panel(s, t, a, cardMargin)
	endB := c.panel(s, t, b, CardWidth/2+cardMargin/2)
	// The final values on one line across both halves: right under the
	// taller diagram, or at the card's foot.
	keys := max(len(t.Summary[a].Final), 1)
	y := min(CardHeight-30, max(endA, endB)+16+36*keys)
	c.final(t, a, cardMargin, y)
	c.final(t, b, CardWidth/2+cardMargin/2, y)
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

// panel draws one policy's half of the comparison card at x: its name and
// verdict in large type, the policy's space-time diagram below them as
// large as the half allows (cropped, fading out, when too long). It
// returns where the drawing ends, for the final values under it.
func (c *canvas) panel(s *lab.Scenario, t *lab.Trace, p lab.Policy, x int) (end int) {
	verdict := shape{kind: shText, x1: x, y1: cmpTop + 66, text: verdictWords(t, p), fill: verdictColour(t, p), size: 28, bold: true}
	c.fitIn(&verdict, cmpPanelW, 20)
	c.shapes([]shape{{kind: shText, x1: x, y1: cmpTop + 30, text: "Policy " + string(p), fill: colInk, size: 30, bold: true}, verdict})
	keys := max(len(t.Summary[p].Final), 1)
	bottom := CardHeight - 30 - 36*keys - 8
	return c.panelDiagram(s, t, p, x, cmpTop+84, bottom)
}

// panelDiagram draws p's diagram, without its caption or legend, into the
// box from x, top to x+cmpPanelW, bottom: as large as fits, but never so
// small that its labels stop reading; a diagram taller than that is cut
// and fades out at the box's foot. It returns where the drawing ends.
func (c *canvas) panelDiagram(s *lab.Scenario, t *lab.Trace, p lab.Policy, x, top, bottom int) (end int) {
	d := layoutDiagram(s, t, p, false, nil)
	areaW, areaH := float64(cmpPanelW), float64(bottom-top)
	h := float64(d.height - captionH)
	k := min(areaW/float64(d.width), areaH/h, 1.2)
	k = max(k, min(areaW/float64(d.width), 0.5))
	saved := *c
	c.k = k
	c.ox = float64(x) + (areaW-float64(d.width)*k)/2
	c.oy = float64(top) - captionH*k
	c.clip = image.Rect(x, top, x+cmpPanelW, bottom)
	c.diagram(d)
	c.k, c.ox, c.oy, c.clip = saved.k, saved.ox, saved.oy, saved.clip
	if h*k > areaH+8 {
		fadeBox(c.img, image.Rect(x, bottom-48, x+cmpPanelW, bottom))
		return bottom
	}
	return top + int(h*k)
}

// fadeBox whitens the rows of r more and more, down to white.
func fadeBox(img *image.RGBA, r image.Rectangle) {
	for y := r.Min.Y; y < r.Max.Y; y++ {
		a := uint8(255 * float64(y-r.Min.Y+1) / float64(r.Dy()))
		draw.Draw(img, image.Rect(r.Min.X, y, r.Max.X, y+1), image.NewUniform(color.NRGBA{255, 255, 255, a}), image.Point{}, draw.Over)
	}
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
