package views

import (
	"math/big"

	"fencelab/lab"
	"fencelab/views/export"
)

// classText says what each class of violation means, for the glossaries.
var classText = map[lab.Class]string{
	lab.Corrupting: "The data is wrong: older work overwrote newer work, one operation was applied twice, or an update was overwritten by a value computed without it.",
	lab.Refusing:   "The rightful holder's write was turned away: the protection got in the way of valid work.",
	lab.Deposed:    "A worker whose lease had already passed to a newer grant still got a write in. It was told the write succeeded; the new holder may read it and act on it, and its own later write silently replaces it.",
	lab.Overrun:    "The lease ran out before the worker's write, but nobody had taken over: nothing newer was at risk.",
}

// classShort is the class in a few words, beside a violation.
var classShort = map[lab.Class]string{
	lab.Corrupting: "data corrupted",
	lab.Refusing:   "holder refused",
	lab.Deposed:    "deposed worker's write got in",
	lab.Overrun:    "lease overrun, nobody took over",
}

// classGlyph pairs each class with a sign, so that it never relies on
// colour alone; the signs grow heavier with severity.
var classGlyph = map[lab.Class]string{
	lab.Corrupting: "✖",
	lab.Refusing:   "⊘",
	lab.Deposed:    "▲",
	lab.Overrun:    "△",
}

// ClassGlyph is the sign of class c, or "" for no class (a trace stored
// before violations had classes).
func ClassGlyph(c lab.Class) string { return classGlyph[c] }

// classCSS is the CSS class that colours something by class c; "cls-none"
// for no class.
func classCSS(c lab.Class) string {
	if c == "" {
		return "cls cls-none"
	}
	return "cls cls-" + string(c)
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
	switch c {
	case lab.Corrupting:
		return "corrupts data" + of
	case lab.Refusing:
		return "turns the rightful holder away" + of
	case lab.Deposed:
		return "lets a deposed worker's write in," + of
	case lab.Overrun:
		return "lease overrun only," + of
	}
	if complete {
		return "clean in all " + countText(all)
	}
	return "clean in the " + orderingsText(all) + " explored"
}

// worstSlug names a class in CSS classes and SVG ids: "clean" for none.
func worstSlug(c lab.Class) string {
	if c == "" {
		return "clean"
	}
	return string(c)
}

// classFill is the colour of a class in charts. The colours are told apart
// with any colour vision (no red against green) and by lightness, darkest
// for the most severe; the patterns drawn over them and the words beside
// them tell them apart in grey too.
func classFill(c lab.Class) string {
	switch c {
	case lab.Corrupting:
		return "#b2182b"
	case lab.Refusing:
		return "#5e3c99"
	case lab.Deposed:
		return "#e08214"
	case lab.Overrun:
		return "#fdd96b"
	}
	return "#bcd7ee"
}

// colourNone fills a bar with nothing counted yet.
const colourNone = "#d9dce2"

// eventsText says how the explored events came from the scenario's.
func (r *ExploreResult) eventsText() string {
	if r.X.Writes == lab.WritesAtomic {
		return "The scenario’s events as written; each write is one step (writes atomic)."
	}
	for _, e := range r.Scenario.Events {
		if e.Kind == lab.Write {
			return "The scenario’s events, with each write N split into “send #N” (the worker sends) and “deliver #N” (the request reaches the resource)."
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
	if g := classGlyph[c]; g != "" {
		return g
	}
	return "⚠"
}
