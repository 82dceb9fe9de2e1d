package diagram

import (
	"math"
	"strconv"
	"unicode/utf8"

	"fencelab/lab"
	"fencelab/views/class"
)

// Colours of the diagram. Text colours reach 4.5:1 on white and on the
// band washes; shapes pair with a word, so no meaning rests on colour.
const (
	colInk       = "#16191f"
	colMuted     = "#555c69"
	colRule      = "#c4c8d0"
	colBandAlt   = "#f4f5f7"
	colLease     = "#555c69"
	colResource  = "#3d4350"
	colPause     = "#e3e6eb"
	colPauseLine = "#8a919c"
	colViol      = "#b3141f"
	colViolBg    = "#fde8e8"
	colGood      = "#17703f"
	colBad       = "#b42318"
	colCalm      = "#6b3fb8"
	colInfo      = "#1d4ed8"
	colWarn      = "#8f4b00"
	colWhite     = "#ffffff"
)

// classColour is how a class of violation shows in the diagram: the wash
// behind its band, the mark at the band's edge, and its text (class.Row).
type classColour struct{ wash, line, ink string }

func classColours(c lab.Class) classColour {
	r := class.Of(c) // a trace stored before classes is drawn as corrupting
	return classColour{r.Wash, r.Line, r.Ink}
}

// actorColour is an actor's pill (fill and text) and the darker line its
// arrows and lane use, where the pill's colour is too light for a line.
type actorColour struct{ fill, ink, line string }

// actorPalette matches .actor-0 … .actor-7 of static/css/site.css, so an
// actor has the same colour in the table and in the diagram.
var actorPalette = []actorColour{
	{"#1f5fbf", colWhite, "#1f5fbf"},
	{"#b8430e", colWhite, "#b8430e"},
	{"#137a55", colWhite, "#137a55"},
	{"#8a3c8c", colWhite, "#8a3c8c"},
	{"#f0b43c", "#1d1600", "#9a6a00"},
	{"#63b6e6", "#06202f", "#1c76ad"},
	{"#7a5a12", colWhite, "#7a5a12"},
	{"#3d4350", colWhite, "#3d4350"},
}

// textW estimates a label's width, enough to keep labels apart.
func textW(s string, size int, bold bool) int {
	w := 0.58
	if bold {
		w = 0.67
	}
	return int(math.Ceil(float64(utf8.RuneCountInString(s)*size) * w))
}

// label is a line of text with a halo in the colour behind it.
func label(x, y int, s string, col string, bold bool, halo string) shape {
	return shape{kind: shText, x1: x, y1: y, text: s, fill: col, bold: bold, halo: orWhite(halo)}
}

// orWhite is a band's wash, white where it has none.
func orWhite(bg string) string {
	if bg == "" {
		return colWhite
	}
	return bg
}

// arrow is a line from (x1,y1) whose head's tip is at (x2,y2).
func arrow(x1, y1, x2, y2 int, col, width, dash string) []shape {
	dx, dy := float64(x2-x1), float64(y2-y1)
	l := math.Hypot(dx, dy)
	if l < 1 {
		return nil
	}
	ux, uy := dx/l, dy/l
	bx, by := float64(x2)-10*ux, float64(y2)-10*uy
	head := []point{{float64(x2), float64(y2)}, {tenth(bx - 5*uy), tenth(by + 5*ux)}, {tenth(bx + 5*uy), tenth(by - 5*ux)}}
	return []shape{
		{kind: shLine, x1: x1, y1: y1, x2: int(math.Round(bx + 2*ux)), y2: int(math.Round(by + 2*uy)), stroke: col, width: width, dash: dash},
		{kind: shPoly, pts: head, fill: col},
	}
}

// tenth rounds to the tenth of a unit that the SVG writes.
func tenth(v float64) float64 { return math.Round(v*10) / 10 }

func appendPoint(b []byte, x, y float64) []byte {
	if len(b) > 0 {
		b = append(b, ' ')
	}
	b = strconv.AppendFloat(b, math.Round(x*10)/10, 'f', -1, 64)
	b = append(b, ',')
	return strconv.AppendFloat(b, math.Round(y*10)/10, 'f', -1, 64)
}

// chip is a token in a small box, the diagram's one sign for a token.
func chip(cx, y int, text, col, bg string) []shape {
	w := textW(text, 12, true) + 10
	return []shape{
		{kind: shRect, x1: cx - w/2, y1: y - 9, x2: w, y2: 18, r: 3, fill: bg, stroke: col, width: "1.5"},
		{kind: shText, x1: cx, y1: y + 4, text: text, fill: colInk, size: 12, bold: true, anchor: "middle"},
	}
}

func chipW(text string) int { return textW(text, 12, true) + 10 }

// decisionColour is the colour of a decision's mark and word.
func decisionColour(d lab.Decision) string {
	switch d {
	case lab.Accepted:
		return colGood
	case lab.Rejected, lab.Refused:
		return colBad
	case lab.Suppressed:
		return colCalm
	case lab.Checked, lab.Applied:
		return colInfo
	}
	return colWarn
}

// endMark is a decision's shape at (x,y) and its word to the right:
// a filled circle, a cross, a ring, a diamond (open when only checked).
func endMark(d lab.Decision, x, y int, halo string) []shape {
	col := decisionColour(d)
	out := []shape{{kind: shCircle, x1: x, y1: y, r: 10, fill: colWhite}}
	switch d {
	case lab.Accepted:
		out = append(out, shape{kind: shCircle, x1: x, y1: y, r: 7, fill: col})
	case lab.Rejected:
		out = append(out, cross(x, y, 6, col, "3")...)
	case lab.Suppressed:
		out = append(out, shape{kind: shCircle, x1: x, y1: y, r: 6, fill: colWhite, stroke: col, width: "2.5"})
	case lab.Checked, lab.Applied:
		fill := colWhite
		if d == lab.Applied {
			fill = col
		}
		out = append(out, shape{kind: shPoly, pts: diamond(x, y, 8), fill: fill, stroke: col, width: "2.5"})
	default:
		out = append(out, banned(x, y, col)...)
	}
	return append(out, label(x+14, y+5, string(d), col, true, halo))
}

func cross(x, y, r int, col, width string) []shape {
	return []shape{
		{kind: shLine, x1: x - r, y1: y - r, x2: x + r, y2: y + r, stroke: col, width: width},
		{kind: shLine, x1: x - r, y1: y + r, x2: x + r, y2: y - r, stroke: col, width: width},
	}
}

// banned is a circle with a slash: a request that never left or never landed.
func banned(x, y int, col string) []shape {
	return []shape{
		{kind: shCircle, x1: x, y1: y, r: 6, fill: colWhite, stroke: col, width: "2"},
		{kind: shLine, x1: x - 4, y1: y + 4, x2: x + 4, y2: y - 4, stroke: col, width: "2"},
	}
}

func diamond(x, y, r int) []point {
	fx, fy, fr := float64(x), float64(y), float64(r)
	return []point{{fx, fy - fr}, {fx + fr, fy}, {fx, fy + fr}, {fx - fr, fy}}
}
