package views

import (
	"math/big"

	"fencelab/lab"
	"fencelab/views/class"
	"fencelab/views/export"
)

// classText says what each class of violation means, for the glossaries.
var classText = byClass(func(r class.Row) string { return r.Words })

// classShort is the class in a few words, beside a violation.
var classShort = byClass(func(r class.Row) string { return r.Short })

// byClass is one column of the classes' table, by class.
func byClass(col func(class.Row) string) map[lab.Class]string {
	m := map[lab.Class]string{}
	for _, r := range class.Rows() {
		m[r.Class] = col(r)
	}
	return m
}

// ClassGlyph is the sign of class c, or "" for no class (a trace stored
// before violations had classes).
func ClassGlyph(c lab.Class) string { return class.Of(c).Glyph }

// classCSS is the CSS class that colours something by class c; "cls-none"
// for no class.
func classCSS(c lab.Class) string {
	if c == "" {
		return "cls cls-none"
	}
	return "cls cls-" + class.Of(c).Slug
}

// worstOf is the most severe class among violations, or "".
func worstOf(vs []lab.Violation) lab.Class { return lab.Summary{Violations: vs}.Worst() }

// verdictWords is a policy's verdict over one run in a few words.
func verdictWords(c lab.Class, n int) string {
	if w := export.ClassWords(c); w != "" {
		return w
	}
	if n > 0 {
		return plural(n, "violation")
	}
	return "clean"
}

// worstWords says a policy's worst class over many orderings, as in
// "corrupts data in 1 of 720 orderings" or "clean in all 720".
func worstWords(c lab.Class, n, all *big.Int, complete bool) string {
	of := " in " + countText(n) + " of " + orderingsText(all)
	if r := class.Of(c); r.Verdict != "" {
		if r.Comma {
			return r.Verdict + "," + of
		}
		return r.Verdict + of
	}
	if complete {
		return "clean in all " + countText(all)
	}
	return "clean in the " + orderingsText(all) + " explored"
}

// worstSlug names a class in CSS classes and SVG ids: "clean" for none.
func worstSlug(c lab.Class) string { return class.Of(c).Slug }

// classFill is the colour of a class in charts (class.Row.Fill).
func classFill(c lab.Class) string { return class.Of(c).Fill }

// classPatternSVG is what a chart draws over the colour of class c
// (class.Row.Pattern): our own markup, never the reader's.
func classPatternSVG(c lab.Class) string { return class.Of(c).Pattern }

// colourNone fills a bar with nothing counted yet.
const colourNone = "#d9dce2"

// eventsText says how the explored events came from the scenario's.
func (r *ExploreResult) eventsText() string {
	if r.X.Writes == lab.WritesAtomic {
		return "The scenario’s events as written; each write is one step (writes atomic)."
	}
	for _, e := range r.Scenario.Events {
		if e.Kind == lab.Write {
			return "The scenario’s events, with each write N split into “send #N” (the worker sends) " +
				"and “deliver #N” (the request reaches the resource)."
		}
	}
	return "The scenario’s events as written."
}

// switchesText says which rules the exploration ran under.
func (r *ExploreResult) switchesText() string {
	w := "writes split into send and deliver"
	if r.X.Writes == lab.WritesAtomic {
		w = "writes atomic"
	}
	e := "expiry free"
	if r.X.Expiry == lab.ExpiryProgram {
		e = "expiry in the program"
	}
	return w + ", " + e
}

// violationGlyph is a violation's sign: its class's, or a warning sign
// for a violation without a class (a trace stored before classes).
func violationGlyph(c lab.Class) string {
	if g := ClassGlyph(c); g != "" {
		return g
	}
	return "⚠"
}
