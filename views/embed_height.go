package views

import (
	"math"

	"fencelab/lab"
	"fencelab/views/diagram"
	"fencelab/views/wrap"
)

// The embed page's layout in pixels, as static/css (site.css, diagram.css,
// embed.css) sets it: EmbedHeight adds these up. embed.css gives every
// line a height in pixels and the table fixed column widths, so that only
// line counts depend on the text; change a number there and here
// together. The browser test of the oEmbed frame
// (server/oembed_browser_test.go) fails when they drift.
const (
	embedNarrow = 720 // site.css turns table rows into cards at max-width 720px
	embedPadX   = 16  // body.embed's padding, left and right
	embedPadTop = 12
	embedPadBot = 8

	kickerH      = 20
	titleSize    = 21.6 // 1.35rem
	titleLineH   = 27
	titleSpacing = -.01 * titleSize // site.css's letter-spacing of h1
	titleMargin  = 1.6 + 5.6
	verdictSize  = 15.2 // .95rem
	verdictLH    = 24
	verdictGapX  = 20
	verdictGapY  = 4
	headToDiag   = 16 // the header's margin (12) collapsed into the diagram's (16)
	logsTop      = 4  // .embed-logs's margin above

	diagramMax    = 1100 // diagram.css's max-width
	diagramBorder = 2
	diagramBelow  = 12

	footTop  = 9.6
	footLH   = 22
	footSize = 14.4
	footGap  = 8

	cellSize  = 15.52 // the table's .97rem
	cellLH    = 24
	wideStepW = 96 // embed.css's fixed columns
	wideActW  = 64
	wideTokW  = 72
	widePadX  = 11.2 // a cell's .7rem, each side
	widePadY  = 8.8
	theadH    = 41.6 + 1
	rowBorder = 1

	cardPadY      = 8
	cardHeadH     = 24 + 2*cardPadY // step, actor and token, on one line
	cardEventPadX = 12.8 + 9.6
	cardPolPadX   = 2 * 12.8
	cardPolPadY   = 8.8
	cardGap       = 12.8
	cardLabelW    = 104 + 8 // a policy's name before its badge: min-width and margin
)

// EmbedMinWidth is the narrowest frame the embed page is laid out and
// measured for (server/oembed_fit_browser_test.go): narrower, its cards
// overflow and no height would be true, so oEmbed refuses a smaller
// maxwidth rather than answer one.
const EmbedMinWidth = 320

// EmbedHeight is the height in pixels of the embed page of r, its diagram
// under d, its kind ("saved run" or "built-in scenario", as in EmbedPage),
// in a frame width pixels wide, for the oEmbed answer: the
// header, the diagram scaled to the frame, the table (a row per step, or
// a card per step in a frame as narrow as site.css's breakpoint) and the
// link back. embed.css fixes every line height and the table's column
// widths in pixels, so the height is exact once the lines are counted;
// package wrap counts them by breaking the text as Chromium does, with
// the advances of the DejaVu fonts it uses on Linux. Other common fonts
// are narrower: they take as many lines or fewer, so the frame is never
// too short, at worst a little tall. Measured with Chromium over every
// built-in (server/oembed_fit_browser_test.go), the height is 1 to 3
// pixels over the page's (at most +0.14%) at 900, 721, 700, 500 and 320
// pixels; before, at 900 pixels it was off by -7% to +6%.
func EmbedHeight(r *Report, d lab.Policy, kind string, width int) int {
	c := float64(width - 2*embedPadX)
	h := embedPadTop + embedHeader(r, c) + headToDiag + embedDiagram(r, d, c) + diagramBelow
	if width <= embedNarrow {
		// The last card's margin and the footer's collapse into the larger.
		h += embedCards(r, c) - min(cardGap, footTop)
	} else {
		h += embedRows(r, c)
	}
	h += footTop + embedFoot(kind, c) + embedPadBot
	return int(math.Ceil(h)) + 1
}

// embedHeader is the kicker, the title and the verdicts: flex items in
// rows, an item wider than the header wrapping its own text.
func embedHeader(r *Report, c float64) float64 {
	title := wrap.Lines(c, wrap.Run{Text: r.Scenario.Title, Face: wrap.SansBold, Size: titleSize, Spacing: titleSpacing})
	h := kickerH + titleMargin + float64(title)*titleLineH - verdictGapY
	x, lines := 0.0, 0
	for _, p := range r.Policies {
		runs := verdictRuns(p, r.Trace.Summary[p].Violations)
		w := 0.0
		for _, run := range runs {
			w += wrap.Width(run.Face, run.Size, run.Text)
		}
		if x > 0 && x+verdictGapX+w <= c {
			x += verdictGapX + w
			continue
		}
		h += float64(lines)*verdictLH + verdictGapY
		x, lines = min(w, c), wrap.Lines(c, runs...)
	}
	h += float64(lines) * verdictLH
	if r.Logs != "" { // a saved import's line: embed.css's .embed-logs
		h += logsTop + float64(wrap.Lines(c, wrap.Run{Text: r.Logs, Face: wrap.Sans, Size: verdictSize}))*verdictLH
	}
	return h
}

// verdictRuns is a policy's verdict in the header.
func verdictRuns(p lab.Policy, vs []lab.Violation) []wrap.Run {
	glyph := "✓"
	if len(vs) > 0 {
		glyph = "⚠"
	}
	return []wrap.Run{
		{Text: string(p), Face: wrap.SansBold, Size: verdictSize},
		{Text: ": " + glyph + " " + violationsText(vs), Face: wrap.Sans, Size: verdictSize},
	}
}

// embedDiagram is the diagram scaled to the frame, in its bordered box.
func embedDiagram(r *Report, d lab.Policy, c float64) float64 {
	dw, dh := diagram.Bounds(r.Scenario, r.Trace, d)
	if r.Imported != nil {
		dw, dh = diagram.ImportedBounds(r.Scenario, r.Trace, d, r.Imported)
	}
	inner := min(c-diagramBorder, diagramMax)
	return diagramBorder + float64(dh)*inner/float64(max(1, dw))
}

// embedFoot is the link back and the engine's version: one flex row, or
// two when they do not fit side by side, the link wrapping in a narrow
// frame.
func embedFoot(kind string, c float64) float64 {
	link := wrap.Run{Text: "Open the full " + kind + " on fencelab →", Face: wrap.Sans, Size: footSize} // as embed.templ writes it
	w := wrap.Width(link.Face, link.Size, link.Text) + footGap + wrap.Width(wrap.Sans, footSize, "engine "+lab.Version)
	if w <= c {
		return footLH
	}
	return float64(wrap.Lines(c, link)+1)*footLH + footGap
}
