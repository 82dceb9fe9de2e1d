package diagram

import (
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"fencelab/lab"
)

// diagram is everything the renderers draw, in drawing order.
type diagram struct {
	id         string // prefix of the title and desc ids
	standalone bool   // a complete SVG document rather than part of a page
	policy     lab.Policy
	verdict    string // the caption's sum of the violations
	width      int
	height     int
	title      string // <title>: what the picture is
	desc       string // <desc>: what it shows, in words
	header     []shape
	lanes      []group
	spans      []group // lease bars, expired leases, pauses: behind the bands
	flights    []group // requests in flight and commit brackets, across bands
	bands      []band
	footer     []shape // final values and the legend
}

// band is one step: a horizontal strip with its step number and marks.
type band struct {
	step   int
	y, h   int
	class  string // "band", plus "skipped" or "violated"
	fill   string // background; empty for none
	tip    string // tooltip: the event and this policy's reason
	faint  bool   // a skipped step is drawn at reduced opacity
	groups []group
}

// group is a set of shapes with one meaning (an arrow and its labels, a
// mark), so tests and CSS can find it by class.
type group struct {
	class  string
	tip    string
	href   string // a link around the group, on pages only: made here from a step number
	shapes []shape
}

// shapeKind says which SVG element a shape becomes.
type shapeKind uint8

const (
	shLine   shapeKind = iota // x1,y1 → x2,y2
	shPoly                    // a closed polygon through pts
	shPath                    // a cubic Bézier curve: pts[0], controls pts[1], pts[2], end pts[3]
	shCircle                  // centre x1,y1, radius r
	shRect                    // x1,y1, width x2, height y2, corner r
	shText                    // at x1,y1
)

// shape is one SVG element with its presentation attributes. Unused
// attributes are left empty and not written.
type shape struct {
	kind           shapeKind
	x1, y1, x2, y2 int
	r              int
	pts            []point
	d              string // SVG path data or points, made from the geometry by svgPaths
	fill, stroke   string
	width          string // stroke width
	dash           string
	text           string
	anchor         string // text-anchor; empty for start
	size           int    // font size; 0 for the default 13
	bold, italic   bool
	halo           string // colour painted behind text so it reads over lines
}

// SVG writes the diagram under policy p as a standalone SVG document (for
// /r/{id}.svg and the CLI): an XML declaration, its natural size, a title
// line and no stylesheet needed. An unknown policy is drawn as the first
// of lab.Policies.
func SVG(w io.Writer, s *lab.Scenario, t *lab.Trace, p lab.Policy) error {
	if _, err := io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?>`+"\n"); err != nil {
		return err
	}
	return writeSVG(w, newDiagram(s, t, p, true, nil))
}

// Inline writes the diagram as an <svg> element for a page: it scales to
// its container's width, and static/css/diagram.css styles its classes
// (it needs no inline style). The actors named in order get the first
// lanes and colours, as the editor's actor list has them; the rest follow
// in order of first appearance.
func Inline(w io.Writer, s *lab.Scenario, t *lab.Trace, p lab.Policy, order []string) error {
	return writeSVG(w, newDiagram(s, t, p, false, order))
}

// TitleID is the id of the <title> of the diagram under p, for an element
// around it to be labelled by (aria-labelledby).
func TitleID(p lab.Policy) string { return "diagram-" + string(known(p)) + "-title" }

// Bounds is the natural size of the page's diagram (Inline), in SVG user
// units: CSS pixels at 1x.
func Bounds(s *lab.Scenario, t *lab.Trace, p lab.Policy) (width, height int) {
	d := layoutDiagram(s, t, p, false, nil)
	return d.width, d.height
}

// Alt describes the picture in words, for the alt text of an image of it.
func Alt(s *lab.Scenario, t *lab.Trace, p lab.Policy) string {
	return "Space-time diagram of “" + clip(s.Title, lab.MaxTitle) + "” under " + string(p) + ": " + verdictOf(t.Summary[p].Violations)
}

// known is p, or the first of lab.Policies for an unknown policy, which
// has no outcomes to draw.
func known(p lab.Policy) lab.Policy {
	if lab.PolicyIndex(p) < 0 {
		return lab.Policies()[0]
	}
	return p
}

// point is a position in SVG user units.
type point struct{ x, y float64 }

// newDiagram lays out the whole picture for the SVG renderer.
func newDiagram(s *lab.Scenario, t *lab.Trace, p lab.Policy, standalone bool, order []string) *diagram {
	d := layoutDiagram(s, t, p, standalone, order)
	d.svgPaths()
	return d
}

// layoutDiagram lays out the whole picture: the geometry both renderers draw.
func layoutDiagram(s *lab.Scenario, t *lab.Trace, p lab.Policy, standalone bool, order []string) *diagram {
	return layoutWith(s, t, p, standalone, order, nil)
}

// layoutWith is layoutDiagram, of an imported timeline when im is not nil.
func layoutWith(s *lab.Scenario, t *lab.Trace, p lab.Policy, standalone bool, order []string, im *Imported) *diagram {
	p = known(p)
	g := newGrid(s, t, p, standalone, order, im)
	d := &diagram{id: "diagram-" + string(p), standalone: standalone, policy: p, verdict: g.verdict()}
	d.title = clip(s.Title, lab.MaxTitle) + " — under " + string(p)
	if im != nil {
		d.title = clip(s.Title, lab.MaxTitle) + " — the imported timeline replayed under " + string(p) + ", beside what the logs say"
	}
	d.desc = g.describe()
	d.header = g.header()
	d.lanes = g.laneLines()
	d.bands = g.drawBands()
	d.spans = g.spans()
	d.flights = g.flights
	d.footer = g.footer()
	d.width, d.height = g.width, g.height
	return d
}

// svgPaths writes each line, polygon and curve as SVG path data or points,
// one attribute for the SVG writer to write.
func (d *diagram) svgPaths() {
	d.eachShape(func(s *shape) {
		switch s.kind {
		case shLine:
			b := make([]byte, 0, 32)
			b = strconv.AppendInt(append(b, 'M'), int64(s.x1), 10)
			b = strconv.AppendInt(append(b, ' '), int64(s.y1), 10)
			b = strconv.AppendInt(append(b, 'L'), int64(s.x2), 10)
			s.d = string(strconv.AppendInt(append(b, ' '), int64(s.y2), 10))
		case shPoly:
			b := make([]byte, 0, 16*len(s.pts))
			for _, p := range s.pts {
				b = appendPoint(b, p.x, p.y)
			}
			s.d = string(b)
		case shPath:
			if len(s.pts) == 4 {
				s.d = "M" + svgNum(s.pts[0].x) + " " + svgNum(s.pts[0].y) + " C" + svgNum(s.pts[1].x) + " " + svgNum(s.pts[1].y) + " " +
					svgNum(s.pts[2].x) + " " + svgNum(s.pts[2].y) + " " + svgNum(s.pts[3].x) + " " + svgNum(s.pts[3].y)
			}
		}
	})
}

// eachShape calls f on every shape of the diagram, in drawing order.
func (d *diagram) eachShape(f func(*shape)) {
	each := func(shapes []shape) {
		for i := range shapes {
			f(&shapes[i])
		}
	}
	for _, groups := range [][]group{d.lanes, d.spans, d.flights} {
		for i := range groups {
			each(groups[i].shapes)
		}
	}
	each(d.header)
	for i := range d.bands {
		for j := range d.bands[i].groups {
			each(d.bands[i].groups[j].shapes)
		}
	}
	each(d.footer)
}

func svgNum(v float64) string {
	return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64)
}

func (d *diagram) viewBox() string {
	return "0 0 " + strconv.Itoa(d.width) + " " + strconv.Itoa(d.height)
}

// svgWidth is the width attribute: the page's column, or the natural size.
func (d *diagram) svgWidth() string {
	if d.standalone {
		return strconv.Itoa(d.width)
	}
	return "100%"
}

// clip makes s safe and short for a label: characters XML cannot carry
// become U+FFFD, runs of white space one space, and a text longer than max
// runes ends in "…". Most labels need none of it and are returned as they are.
func clip(s string, max int) string {
	n, prev := 0, ' '
	for _, r := range s {
		if n++; n > max || r == utf8.RuneError || r != xmlRune(r) || (r == ' ' && prev == ' ') || r == '\t' || r == '\n' || r == '\r' {
			return reclip(s, max)
		}
		prev = r
	}
	if prev == ' ' && n > 0 {
		return reclip(s, max)
	}
	return s
}

func reclip(s string, max int) string {
	var b strings.Builder
	n, space := 0, false
	for _, r := range s {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
			n++
		}
		space = false
		if n >= max {
			return strings.TrimRight(b.String(), " ") + "…"
		}
		b.WriteRune(xmlRune(r))
		n++
	}
	return b.String()
}

// xmlRune replaces what XML 1.0 forbids even as a character reference.
func xmlRune(r rune) rune {
	switch {
	case r < 0x20, r >= 0xD800 && r <= 0xDFFF, r == 0xFFFE, r == 0xFFFF:
		return '\uFFFD'
	}
	return r
}
