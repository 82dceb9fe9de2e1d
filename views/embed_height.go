package views

import (
	"math"

	"fencelab/lab"
	"fencelab/views/diagram"
)

// The embed page's layout in pixels, as static/css (site.css, diagram.css,
// embed.css) lays it out in Chromium with its 16px root: EmbedHeight adds
// these up. Change them with the CSS; the browser test of the oEmbed frame
// (server/oembed_browser_test.go) fails when they drift.
const (
	embedNarrow   = 720 // site.css turns table rows into cards at max-width 720px
	embedPadX     = 32  // body.embed's padding, left and right
	embedPadY     = 20  // body.embed's padding, top and bottom
	lineH         = 24.06
	charW         = 7.3 // the average advance of the table's 15.5px text
	cellPadY      = 17.6
	headKicker    = 20.4
	titleLineH    = 27
	titleCharW    = 11.6
	verdictLineH  = 23.5
	verdictCharW  = 7.4
	headGap       = 16.1 // under the title, and the header's margin
	diagramMargin = 16 + 12
	diagramMax    = 1100 // diagram.css's max-width
	footH         = 9.6 + 22
	theadH        = 42
	cardGap       = 12.8
	cardHead      = 42.6
	violationH    = 27.3
	wideFixedCols = 227 // step, actor and token columns, together
	eventMinW     = 192 // site.css's min-width of the event column, 12rem
	policyMinW    = 208 // and of a policy's, 13rem
)

// EmbedHeight is the height in pixels of the embed page of r, its diagram
// under d, in a frame width pixels wide, for the oEmbed answer: the
// header, the diagram scaled to the frame, the table (a row per step, or
// a card per step in a frame as narrow as site.css's breakpoint) and the
// link back. Lines are counted from the text's length, so it is an
// estimate, rounded up by 1% so that a frame of this height needs no
// scrollbar.
func EmbedHeight(r *Report, d lab.Policy, width int) int {
	w := float64(width - embedPadX)
	h := embedPadY + embedHeader(r, w) + embedDiagram(r, d, w) + footH
	if width <= embedNarrow {
		for _, st := range r.Trace.Steps {
			h += stepCard(r, st, w) + cardGap
		}
	} else {
		h += theadH
		for _, st := range r.Trace.Steps {
			h += stepRowHeight(r, st, w)
		}
	}
	return int(math.Ceil(h * 1.01))
}

// lines is how many lines text takes in a box avail pixels wide.
func lines(n int, avail, cw float64) float64 {
	return max(1, math.Ceil(float64(n)*cw/max(avail, 1)))
}

func embedHeader(r *Report, w float64) float64 {
	h := headKicker + lines(len([]rune(r.Scenario.Title)), w, titleCharW)*titleLineH + headGap
	x, rows := 0.0, 1.0
	for _, p := range r.Policies {
		n := len(string(p)) + 4 + len(violationsText(r.Trace.Summary[p].Violations))
		pw := float64(n) * verdictCharW
		if x > 0 && x+20+pw > w {
			x, rows = 0, rows+1
		}
		rows += lines(n, w, verdictCharW) - 1
		x += 20 + pw
	}
	return h + rows*verdictLineH
}

func embedDiagram(r *Report, d lab.Policy, w float64) float64 {
	dw, dh := diagram.Bounds(r.Scenario, r.Trace, d)
	inner := min(w-2, diagramMax)
	return diagramMargin + 2 + float64(dh)*inner/float64(max(1, dw))
}

// eventLines is the event's description and its note, each in lines.
func eventLines(r *Report, e lab.Event, avail float64) (desc, note float64) {
	n := len(e.Kind)
	for _, f := range r.eventFields(e) {
		n += 1 + len([]rune(f.Name)) + 1 + len([]rune(f.Value))
	}
	desc = lines(n, avail, charW)
	if e.Note != "" {
		note = lines(len([]rune(e.Note)), avail, charW*0.93)
	}
	return desc, note
}

// outcomeLines is a policy's cell in lines: decision, reason, violations
// (counted apart, their boxes are taller) and a line per resource.
func outcomeLines(r *Report, p lab.Policy, st lab.Step, avail float64) (text float64, violations int) {
	o := st.Outcomes.Of(p)
	text = 1 + lines(len([]rune(o.Reason)), avail, charW)
	for _, res := range r.resources {
		n := len([]rune(res)) + 3 + 6
		if v := o.Values[res]; v != nil {
			n = len([]rune(res)) + 3 + len([]rune(*v))
			if t := o.Tokens[res]; t != nil {
				n += 7 + len(token(t))
			}
		}
		text += lines(n, avail, charW)
	}
	return text, len(r.violated(p, st.Index))
}

// stepCard is a step's card in a narrow frame.
func stepCard(r *Report, st lab.Step, w float64) float64 {
	avail := w - 2 - 25.6
	desc, note := eventLines(r, st.Event, avail)
	h := 2 + cardHead + cellPadY/2 + desc*lineH
	if note > 0 {
		h += 3.2 + note*lineH*0.93
	}
	for _, p := range r.Policies {
		text, v := outcomeLines(r, p, st, avail)
		h += 1 + cellPadY + 8.4 + text*lineH + float64(v)*violationH
	}
	return h
}

// stepRowHeight is a step's row in a wide frame: its tallest cell. The
// event and the policies share what the fixed columns leave.
func stepRowHeight(r *Report, st lab.Step, w float64) float64 {
	share := (w - 2 - wideFixedCols) / float64(1+len(r.Policies))
	desc, note := eventLines(r, st.Event, max(share, eventMinW)-22.4)
	h := cellPadY + desc*lineH
	if note > 0 {
		h += 3.2 + note*lineH*0.93
	}
	for _, p := range r.Policies {
		text, v := outcomeLines(r, p, st, max(share, policyMinW)-22.4)
		h = max(h, cellPadY+9.4+text*lineH+float64(v)*violationH)
	}
	return h + 1
}
