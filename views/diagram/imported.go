package diagram

import (
	"io"
	"math"

	"fencelab/lab"
)

// Imported is what an import's logs say the resource did, for a picture
// of an imported timeline: the diagram then draws a policy's replay of
// it, says so in its caption, and writes beside each step the logs'
// outcome, in a column of its own, so that a policy's run is never taken
// for the incident.
type Imported struct {
	// Observed is each step's outcome as the logs say it: "applied",
	// "rejected" or "suppressed"; a step the logs say nothing of is absent.
	Observed map[int]string
	// Behaved is the policy the resource behaved like (the first that
	// agrees with every observed outcome), or "" when none does.
	Behaved lab.Policy
}

// obsW is the width of the logs' column.
const obsW = 190

// ImportedSVG is SVG for an imported timeline: the replay under p with the
// logs' outcomes beside it.
func ImportedSVG(w io.Writer, s *lab.Scenario, t *lab.Trace, p lab.Policy, im *Imported) error {
	if _, err := io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?>`+"\n"); err != nil {
		return err
	}
	d := layoutWith(s, t, p, true, nil, im)
	d.svgPaths()
	return writeSVG(w, d)
}

// ImportedInline is Inline for an imported timeline.
func ImportedInline(w io.Writer, s *lab.Scenario, t *lab.Trace, p lab.Policy, order []string, im *Imported) error {
	d := layoutWith(s, t, p, false, order, im)
	d.svgPaths()
	return writeSVG(w, d)
}

// ImportedPNG is PNG for an imported timeline; its card shows the one
// replay, under p, with the logs' column, rather than two policies side
// by side.
func ImportedPNG(w io.Writer, s *lab.Scenario, t *lab.Trace, p lab.Policy, size Size, im *Imported) error {
	if _, err := goFonts(); err != nil {
		return err
	}
	var c *canvas
	if size == Card {
		c = cardWith(s, t, p, im)
	} else {
		d := layoutWith(s, t, p, true, nil, im)
		k := math.Min(fullScale, math.Sqrt(float64(maxFullArea)/float64(d.width*d.height)))
		c = newCanvas(int(math.Ceil(float64(d.width)*k)), int(math.Ceil(float64(d.height)*k)))
		c.k = k
		c.diagram(d)
	}
	defer c.release()
	return encodePNG(w, c.img)
}

// ImportedBounds is Bounds for an imported timeline: wider by the logs'
// column.
func ImportedBounds(s *lab.Scenario, t *lab.Trace, p lab.Policy, im *Imported) (width, height int) {
	d := layoutWith(s, t, p, false, nil, im)
	return d.width, d.height
}

// ImportedAlt is the alt text of an imported timeline's picture.
func ImportedAlt(s *lab.Scenario, t *lab.Trace, p lab.Policy, im *Imported) string {
	out := "Space-time diagram of the imported timeline “" + clip(s.Title, lab.MaxTitle) + "”, replayed under " + string(known(p)) +
		": " + verdictOf(t.Summary[known(p)].Violations) + "; beside each step, what the logs say the resource did"
	if im != nil && im.Behaved != "" {
		out += " (it behaved like " + string(im.Behaved) + ")"
	}
	return out
}

// importedCaption is the caption of a policy's replay of an import.
func (g *grid) importedCaption() string {
	words, _ := importedHeadline(g.t, g.p, g.imported)
	if g.imported.Behaved == g.p {
		words += " · drawn: its replay"
	}
	return words
}

// importedHeadline is the card's line under the title: what the logs say
// first, then which replay is drawn; its colour is the verdict of the
// policy the resource behaved like, which is what happened.
func importedHeadline(t *lab.Trace, drawn lab.Policy, im *Imported) (string, string) {
	col := colGood
	if len(t.Summary[drawn].Violations) > 0 {
		col = colViol
	}
	if im.Behaved == "" {
		return "The logs agree with no policy · drawn: " + string(drawn) + "'s replay, " + verdictOf(t.Summary[drawn].Violations), col
	}
	col = colGood
	if len(t.Summary[im.Behaved].Violations) > 0 {
		col = colViol
	}
	words := "The logs: like " + string(im.Behaved) + ", " + verdictOf(t.Summary[im.Behaved].Violations)
	if drawn != im.Behaved {
		words += " · drawn: " + string(drawn) + "'s replay, " + verdictOf(t.Summary[drawn].Violations)
	}
	return words, col
}

// observedLabel writes in the logs' column what the logs say the resource
// did at step i, and whether the policy drawn would have done the same.
// The model's "accepted" is the logs' "applied": the legend says so once.
func (g *grid) observedLabel(i int, bg string) (group, bool) {
	st := g.t.Steps[i]
	o, ok := g.imported.Observed[st.Index]
	if !ok {
		return group{}, false
	}
	agrees := agreesWith(o, g.outcome(i).Decision)
	col, words, class := colGood, "logs: "+o, "observed agrees"
	if !agrees {
		col, words, class = colBad, "logs: "+o+" (differs)", "observed differs"
	}
	g.used[legendObserved] = true
	tip := "The logs say the resource " + o + " at step " + itoa(st.Index) + "; " + string(g.p) + " " + modelWord(g.outcome(i).Decision) + "."
	return group{class: class, tip: tip,
		shapes: []shape{label(g.obsX+12, g.mid(i)+5, words, col, true, bg)}}, true
}

// agreesWith is logs.Agrees, which the diagram cannot import: applied
// agrees with accepted (or fenced-racy's applied at its commit), rejected
// with rejected, suppressed with suppressed.
func agreesWith(o string, d lab.Decision) bool {
	switch o {
	case "applied":
		return d == lab.Accepted || d == lab.Applied
	case "rejected":
		return d == lab.Rejected
	case "suppressed":
		return d == lab.Suppressed
	}
	return false
}

// modelWord is what the policy did, in the logs' words where they differ.
func modelWord(d lab.Decision) string {
	if d == lab.Accepted {
		return "would have applied it (the model's accepted)"
	}
	return "would have " + string(d) + " it"
}

// observedHead names the logs' column above it.
func (g *grid) observedHead(y int) []shape {
	return []shape{{kind: shText, x1: g.obsX + 12, y1: y + 17, text: "what the logs say", fill: colInk, bold: true}}
}
