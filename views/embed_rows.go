package views

import (
	"fencelab/lab"
	"fencelab/views/wrap"
)

// The step table's text, in pixels, as site.css and embed.css set it.
const (
	fieldSize   = cellSize * .93
	noteLH      = 22
	noteTop     = 3.2
	flagH       = 4 + 16 // a flag's margin and line
	warnSize    = cellSize * .9
	warnLH      = 20
	warnBox     = 5.6 + 2*3.2 // margin above and padding
	warnPadX    = 2*8 + 3
	reasonSize  = cellSize * .92
	smallSize   = cellSize * .9 // stale, violation and values
	paraLH      = 20
	paraAbove   = 3.2 // a stale or violation paragraph's margin; the reason's is 4.8
	paraBelow   = 5.6
	valuesLH    = 22
	valuesPadY  = 2 * .8
	valuesGap   = smallSize * .4
	chipSize    = smallSize * .9
	chipPad     = chipSize*.45 + 1 + chipSize*.25/2
	tokSize     = smallSize * .85
	tokPad      = tokSize*.3 + 1
	verPad      = tokSize * .25 / 2
	badgeLineH  = cellLH
	reasonAbove = 4.8
	actorLH     = 20  // embed.css; the chip's padding is .05em .5em
	actorScale  = .85 // the chip's font size in the table, embed.css and site.css's cards

	cardStepPadX  = 12.8 + 9.6
	cardPadX      = 9.6
	cardActorPadX = 3.2 + 9.6
	cardTokenSize = 12.8 // the "token " before it, .8rem
	stepNoSize    = 16.8 // 1.05rem
	flagSize      = 11.52
	flagSpacing   = .04 * flagSize
	flagGapX      = 9.6
)

// embedRows is the wide table: its border, head and a row per step, each
// as tall as its tallest cell.
func embedRows(r *Report, c float64) float64 {
	inner := c - 2
	share := (inner - wideStepW - r.actorColumn() - wideTokW) / float64(1+len(r.Policies))
	text := share - 2*widePadX
	h := 2 + theadH
	for i, st := range r.Trace.Steps {
		// A policy's left border takes from its own cell: all of it from
		// the first policy's, half from the next one's (as measured).
		cell := max(stepCell(r, st), eventCell(r, st, text))
		for j, p := range r.Policies {
			cell = max(cell, policyCell(r, i, p, st, text-.5-float64(1-min(j, 1))*.5))
		}
		h += cell + 2*widePadY + rowBorder
	}
	return h - rowBorder
}

// embedCards is the narrow table: a card per step.
func embedCards(r *Report, c float64) float64 {
	inner := c - 2
	h := 0.0
	for i, st := range r.Trace.Steps {
		h += 2 + cardHead(r, st, inner) + eventCell(r, st, inner-cardEventPadX) + cardPadY + rowBorder + cardGap
		for j, p := range r.Policies {
			first := float64(cardLabelW) + wrap.Width(wrap.SansBold, 14.4, string(st.Outcomes.Of(p).Decision)+"  ")
			h += 2*cardPolPadY + policyCell(r, i, p, st, inner-cardPolPadX) + float64(min(j, 1))*rowBorder
			if first > inner-cardPolPadX {
				h += badgeLineH
			}
		}
	}
	return h
}

// cardHead is a card's first band: the step and its flags, the actor and
// the token, each as wide as it needs.
func cardHead(r *Report, st lab.Step, inner float64) float64 {
	step := cardStepPadX + wrap.Width(wrap.SansBold, stepNoSize, itoa(st.Index))
	for _, f := range []struct {
		on   bool
		text string
	}{{r.disagree(st), "≠ DIFFER"}, {r.skipped(st), "↷ SKIPPED"}} {
		if f.on {
			step += flagGapX + wrap.Width(wrap.SansBold, flagSize, f.text) + flagSpacing*float64(len([]rune(f.text)))
		}
	}
	tok := 2*cardPadX + wrap.Width(wrap.Mono, cellSize, token(st.Token))
	if st.Token != nil {
		tok += wrap.Width(wrap.Sans, cardTokenSize, "token ")
	}
	// The actor's chip, at actorScale, keeps its name on one line where
	// the head has room and breaks it after a hyphen where it has not.
	h := float64(cardHeadH)
	if a := st.Event.Actor; a != "" {
		size := cellSize * actorScale
		n := wrap.Lines(inner-step-tok-cardActorPadX-size, wrap.Run{Text: a, Face: wrap.SansBold, Size: size})
		h = max(h, 2*cardPadY+actorLH*float64(n)+size*.1)
	}
	return h
}

// stepCell is the step's number and its flags; the actor's chip, on one
// line in a column wide enough for the longest name (actorColumn), is no
// taller than a line.
func stepCell(r *Report, st lab.Step) float64 {
	h := float64(cellLH)
	if r.disagree(st) {
		h += flagH
	}
	if r.skipped(st) {
		h += flagH
	}
	return h
}

// actorWidths are the wide table's actor columns, in pixels, as embed.css
// sets them for the classes act-w0, act-w1, ...: the narrowest that holds
// the longest actor name's chip on one line.
var actorWidths = []float64{wideActW, 104, 144, 184}

// actorBucket is the index in actorWidths of the column r's actors need.
func (r *Report) actorBucket() int {
	need := 0.0
	for _, a := range r.actorList {
		// the chip is .85em (embed.css), padded .5em each side; the cell
		// is padded widePadX
		need = max(need, (wrap.Width(wrap.SansBold, cellSize, a)+cellSize)*actorScale+2*widePadX+2)
	}
	for i, w := range actorWidths {
		if need <= w {
			return i
		}
	}
	return len(actorWidths) - 1
}

// actorColumn is the wide table's actor column, in pixels.
func (r *Report) actorColumn() float64 { return actorWidths[r.actorBucket()] }

// actorWidthClass names the actor column's width for embed.css.
// (none for the narrowest).
func (r *Report) actorWidthClass() string {
	if b := r.actorBucket(); b > 0 {
		return "act-w" + itoa(b)
	}
	return ""
}

// eventCell is the event's kind, a line or more per field, its note and
// its warning, in a box w pixels wide.
func eventCell(r *Report, st lab.Step, w float64) float64 {
	e := st.Event
	h := float64(cellLH)
	for _, f := range r.eventFields(e) {
		h += cellLH * float64(wrap.Lines(w,
			wrap.Run{Text: f.Name + " ", Face: wrap.Sans, Size: fieldSize},
			wrap.Run{Text: f.Value, Face: wrap.Mono, Size: fieldSize, Pad: fieldSize * .25, Anywhere: true}))
	}
	if e.Note != "" {
		h += noteTop + noteLH*float64(wrap.Lines(w, wrap.Run{Text: e.Note, Face: wrap.SansOblique, Size: fieldSize, Anywhere: true}))
	}
	if st.Warning != "" {
		h += warnBox + warnLH*float64(wrap.Lines(w-warnPadX, wrap.Run{Text: "⚠ " + st.Warning, Face: wrap.Sans, Size: warnSize}))
	}
	return h
}

// policyCell is a policy's cell: its badge, reason, staleness, violations
// and the resources' values, in a box w pixels wide.
func policyCell(r *Report, i int, p lab.Policy, st lab.Step, w float64) float64 {
	o := st.Outcomes.Of(p)
	h := badgeLineH + reasonAbove + paraLH*float64(wrap.Lines(w, wrap.Run{Text: o.Reason, Face: wrap.Sans, Size: reasonSize})) + paraBelow
	if s := r.stale(p, i); s != "" {
		h += paraLH*float64(wrap.Lines(w, wrap.Run{Text: "⌛ " + s, Face: wrap.SansBold, Size: smallSize})) + paraBelow
	}
	for _, v := range r.violated(p, st.Index) {
		h += paraLH*float64(wrap.Lines(w, violationRuns(v)...)) + paraBelow
	}
	for _, res := range r.resources {
		h += valuesPadY + valuesLH*float64(valueLines(r, i, p, o, res, w))
	}
	return h
}

// violationRuns is a violation's line: its sign, kind and class.
func violationRuns(v lab.Violation) []wrap.Run {
	runs := []wrap.Run{
		{Text: violationGlyph(v.Class) + " violates ", Face: wrap.SansBold, Size: smallSize},
		{Text: string(v.Kind), Face: wrap.MonoBold, Size: smallSize},
	}
	if v.Class != "" {
		runs = append(runs, wrap.Run{Text: " ", Face: wrap.SansBold, Size: smallSize},
			wrap.Run{Text: string(v.Class), Face: wrap.SansBold, Size: chipSize, Pad: chipPad, NoWrap: true})
	}
	return runs
}

// valueLines is a resource's value in lines: its name and "=" take their
// width, the value, token and version share the rest.
func valueLines(r *Report, i int, p lab.Policy, o lab.Outcome, res string, w float64) int {
	name := res + " ="
	if r.changed(i, p, res) {
		name = "▸ " + name
	}
	w -= wrap.Width(wrap.Sans, smallSize, name) + valuesGap
	v := o.Values[res]
	if v == nil {
		return wrap.Lines(w, wrap.Run{Text: "empty", Face: wrap.SansOblique, Size: smallSize})
	}
	runs := []wrap.Run{{Text: *v, Face: wrap.MonoBold, Size: smallSize, Anywhere: true}}
	if t := o.Tokens[res]; t != nil {
		runs = append(runs, wrap.Run{Text: " ", Face: wrap.Sans, Size: smallSize},
			wrap.Run{Text: "token " + token(t), Face: wrap.Mono, Size: tokSize, Pad: tokPad, NoWrap: true})
	}
	if o.Versions != nil { // right after the token: table.templ writes no space between
		runs = append(runs, wrap.Run{Text: "v" + itoa(o.Versions[res]), Face: wrap.Mono, Size: tokSize, Pad: verPad, NoWrap: true})
	}
	return wrap.Lines(w, runs...)
}
