// Package class is how each class of violation shows: its words, its sign,
// its colours and its name in CSS, one row per class, read alike by the
// pages, the exports and the diagram.
package class

import "fencelab/lab"

// Row is one class as every page, export and picture shows it.
type Row struct {
	Class lab.Class
	// Words say what the class means, for the glossaries.
	Words string
	// Short is the class in a few words, beside a violation.
	Short string
	// Verdict is what a policy with this worst class does, in a few words,
	// as every page and picture says it ("corrupts data").
	Verdict string
	// Comma: the verdict takes a comma before a count, as in "lets a
	// deposed worker's write in, in 50 of 720 orderings".
	Comma bool
	// Glyph pairs the class with a sign, so that it never relies on colour
	// alone; the signs grow heavier with severity.
	Glyph string
	// Slug names the class in CSS classes and SVG ids (site.css has
	// --SLUG and .cls-SLUG).
	Slug string
	// Fill is its colour in charts. The colours are told apart with any
	// colour vision (no red against green) and by lightness, darkest for
	// the most severe; the patterns drawn over them and the words beside
	// them tell them apart in grey too.
	Fill string
	// Pattern is the SVG drawn over the fill in charts, in a tile of 8 by
	// 8, so that the classes differ in grey too: cross-hatched, striped
	// upright, striped aslant, dotted.
	Pattern string
	// Wash, Line and Ink are how it shows in the diagram: the wash behind
	// its band, the mark at the band's edge, and its text, which reaches
	// 4.5:1 on the wash. The same hues as the pages' classes (site.css).
	Wash, Line, Ink string
}

// rows are the classes from the most to the least severe, as lab.Classes
// lists them.
var rows = [...]Row{
	{
		Class: lab.Corrupting,
		Words: "The data is wrong: older work overwrote newer work, one operation was applied twice, " +
			"or an update was overwritten by a value computed without it.",
		Short:   "data corrupted",
		Verdict: "corrupts data",
		Glyph:   "✖",
		Slug:    "corrupting",
		Fill:    "#b2182b",
		Pattern: `<path d="M0 0L8 8M8 0L0 8" stroke="#ffffff" stroke-opacity="0.6" stroke-width="1.5"></path>`,
		Wash:    "#fde8e8", Line: "#b3141f", Ink: "#b3141f",
	},
	{
		Class:   lab.Refusing,
		Words:   "The rightful holder's write was turned away: the protection got in the way of valid work.",
		Short:   "holder refused",
		Verdict: "turns the rightful holder away",
		Glyph:   "⊘",
		Slug:    "refusing",
		Fill:    "#5e3c99",
		Pattern: `<path d="M2 0V8M6 0V8" stroke="#ffffff" stroke-opacity="0.45" stroke-width="1.5"></path>`,
		Wash:    "#efe8f7", Line: "#5e3c99", Ink: "#4a2c80",
	},
	{
		Class: lab.Deposed,
		Words: "A worker whose lease had already passed to a newer grant still got a write in. " +
			"It was told the write succeeded; the new holder may read it and act on it, and its own later write silently replaces it.",
		Short:   "deposed worker's write got in",
		Verdict: "lets a deposed worker's write in",
		Comma:   true,
		Glyph:   "▲",
		Slug:    "deposed",
		Fill:    "#e08214",
		Pattern: `<path d="M-2 2L2 -2M0 8L8 0M6 10L10 6" stroke="#ffffff" stroke-opacity="0.6" stroke-width="1.5"></path>`,
		Wash:    "#fdf0e0", Line: "#e08214", Ink: "#8a4500",
	},
	{
		Class:   lab.Overrun,
		Words:   "The lease ran out before the worker's write, but nobody had taken over: nothing newer was at risk.",
		Short:   "lease overrun, nobody took over",
		Verdict: "lease overrun only",
		Comma:   true,
		Glyph:   "△",
		Slug:    "overrun",
		Fill:    "#fdd96b",
		Pattern: dots,
		Wash:    "#fdf8dc", Line: "#d9b21c", Ink: "#5c4a00",
	},
}

// dots is overrun's pattern, and that of a class the engine does not give.
const dots = `<circle cx="4" cy="4" r="1.3" fill="#6b5200" fill-opacity="0.55"></circle>`

// none is no class: a clean verdict, or a violation in a trace stored
// before violations had classes. It has no words and no sign; charts fill
// it as clean (and draw no pattern over it), and the diagram draws such a
// violation as a corrupting one.
var none = Row{Slug: "clean", Fill: "#bcd7ee", Pattern: dots, Wash: "#fde8e8", Line: "#b3141f", Ink: "#b3141f"}

// Of is class c's row. For no class it is the row of none above; a name
// the engine does not give keeps that row under its own slug.
func Of(c lab.Class) Row {
	for _, r := range rows {
		if r.Class == c {
			return r
		}
	}
	r := none
	if c != "" {
		r.Class, r.Slug = c, string(c)
	}
	return r
}

// Rows returns every class's row from the most severe, in the order of
// lab.Classes. The slice is the caller's own.
func Rows() []Row { return append([]Row(nil), rows[:]...) }
