package diagram

import (
	"bufio"
	"html"
	"io"
	"strconv"
)

// svgWriter writes the display list as SVG markup. Every value goes
// through html.EscapeString, as templ escaped it when the pages drew the
// diagram, so the bytes are the same on a page and in a file.
type svgWriter struct {
	w *bufio.Writer
}

// writeSVG writes the <svg> element of d, and flushes.
func writeSVG(w io.Writer, d *diagram) error {
	sw := svgWriter{bufio.NewWriter(w)}
	sw.svg(d)
	return sw.w.Flush()
}

func (sw svgWriter) raw(s string) { sw.w.WriteString(s) } // a bufio.Writer keeps its first error for Flush

// attr writes ` name="value"`, the value escaped.
func (sw svgWriter) attr(name, value string) {
	sw.raw(" " + name + `="`)
	sw.raw(html.EscapeString(value))
	sw.raw(`"`)
}

// attrIf writes the attribute only when its value is not empty.
func (sw svgWriter) attrIf(name, value string) {
	if value != "" {
		sw.attr(name, value)
	}
}

func (sw svgWriter) text(s string) { sw.raw(html.EscapeString(s)) }

func (sw svgWriter) svg(d *diagram) {
	sw.raw(`<svg xmlns="http://www.w3.org/2000/svg" class="diagram"`)
	sw.attr("width", d.svgWidth())
	if d.standalone {
		sw.attr("height", itoa(d.height))
	}
	sw.attr("viewBox", d.viewBox())
	sw.role(d)
	sw.raw(` font-family="system-ui, -apple-system, Segoe UI, Roboto, Helvetica Neue, Arial, Noto Sans, DejaVu Sans, sans-serif"`)
	sw.raw(` font-size="13"`)
	sw.attr("fill", colInk)
	sw.raw(`><title`)
	sw.attr("id", d.id+"-title")
	sw.raw(">")
	sw.text(d.title)
	sw.raw(`</title><desc`)
	sw.attr("id", d.id+"-desc")
	sw.raw(">")
	sw.text(d.desc)
	sw.raw(`</desc> <rect class="paper"`)
	sw.attr("width", itoa(d.width))
	sw.attr("height", itoa(d.height))
	sw.attr("fill", colWhite)
	sw.raw(`></rect> <g class="washes">`)
	for _, b := range d.bands {
		if b.fill != "" {
			sw.raw(`<rect x="0"`)
			sw.attr("y", itoa(b.y))
			sw.attr("width", itoa(d.width))
			sw.attr("height", itoa(b.h))
			sw.attr("fill", b.fill)
			sw.raw(`></rect>`)
		}
	}
	sw.layers(d)
	sw.raw(`</g></svg>`)
}

// role makes a file's diagram one picture, named by its title and
// description. On a page the diagram holds links to the steps, and a
// picture's children are presentational, so a link inside one is nested
// interactive content that a screen reader may never reach: there it is a
// named group, described by the same words, whose links stay in reach.
func (sw svgWriter) role(d *diagram) {
	if d.standalone {
		sw.raw(` role="img"`)
		sw.attr("aria-labelledby", d.id+"-title "+d.id+"-desc")
		return
	}
	sw.raw(` role="group"`)
	sw.attr("aria-labelledby", d.id+"-title")
	sw.attr("aria-describedby", d.id+"-desc")
}

// layers writes the groups over the washes, each layer its own <g>.
func (sw svgWriter) layers(d *diagram) {
	for _, layer := range []struct {
		class  string
		groups []group
	}{{"lanes", d.lanes}, {"spans", d.spans}, {"flights", d.flights}} {
		sw.raw(`</g> <g class="` + layer.class + `">`)
		for i := range layer.groups {
			sw.group(&layer.groups[i])
		}
	}
	sw.raw(`</g> <g class="header">`)
	sw.shapes(d.header)
	sw.raw(`</g> <g class="bands">`)
	for i := range d.bands {
		sw.band(d, &d.bands[i])
	}
	sw.raw(`</g> <g class="footer">`)
	sw.shapes(d.footer)
}

func (sw svgWriter) band(d *diagram, b *band) {
	sw.raw("<g")
	sw.attr("class", b.class)
	sw.attr("data-step", itoa(b.step))
	if b.faint {
		sw.raw(` opacity="0.55"`)
	}
	sw.raw("><title>")
	sw.text(b.tip)
	sw.raw(`</title><rect class="hit" x="0"`)
	sw.attr("y", itoa(b.y))
	sw.attr("width", itoa(d.width))
	sw.attr("height", itoa(b.h))
	sw.raw(` fill="transparent"></rect> `)
	for i := range b.groups {
		sw.group(&b.groups[i])
	}
	sw.raw("</g>")
}

func (sw svgWriter) group(gr *group) {
	if gr.href != "" { // never the user's text, so no URL to sanitise
		sw.raw("<a")
		sw.attr("href", gr.href)
		sw.attr("class", gr.class)
		sw.raw(">")
		sw.shapes(gr.shapes)
		sw.raw("</a>")
		return
	}
	sw.raw("<g")
	sw.attr("class", gr.class)
	sw.raw(">")
	if gr.tip != "" {
		sw.raw("<title>")
		sw.text(gr.tip)
		sw.raw("</title>")
	}
	sw.shapes(gr.shapes)
	sw.raw("</g>")
}

func (sw svgWriter) shapes(shapes []shape) {
	for i := range shapes {
		s := &shapes[i]
		switch s.kind {
		case shLine:
			sw.raw("<path")
			sw.attr("d", s.d)
			sw.attr("stroke", s.stroke)
			sw.attr("stroke-width", s.width)
			sw.attrIf("stroke-dasharray", s.dash)
			sw.raw("></path>")
		case shPoly:
			sw.raw("<polygon")
			sw.attr("points", s.d)
			sw.attr("fill", s.fill)
			sw.stroke(s, ` stroke-linejoin="round"`)
			sw.raw("></polygon>")
		case shPath:
			sw.raw("<path")
			sw.attr("d", s.d)
			sw.raw(` fill="none"`)
			sw.attr("stroke", s.stroke)
			sw.attr("stroke-width", s.width)
			sw.attr("stroke-dasharray", s.dash)
			sw.raw("></path>")
		case shCircle:
			sw.raw("<circle")
			sw.attr("cx", itoa(s.x1))
			sw.attr("cy", itoa(s.y1))
			sw.attr("r", itoa(s.r))
			sw.attr("fill", s.fill)
			sw.stroke(s, "")
			sw.raw("></circle>")
		case shRect:
			sw.rect(s)
		case shText:
			sw.textShape(s)
		}
	}
}

// stroke writes a shape's outline, when it has one, and then extra.
func (sw svgWriter) stroke(s *shape, extra string) {
	if s.stroke != "" {
		sw.attr("stroke", s.stroke)
		sw.attr("stroke-width", s.width)
		sw.raw(extra)
	}
}

func (sw svgWriter) rect(s *shape) {
	sw.raw("<rect")
	sw.attr("x", itoa(s.x1))
	sw.attr("y", itoa(s.y1))
	sw.attr("width", itoa(s.x2))
	sw.attr("height", itoa(s.y2))
	if s.r != 0 {
		sw.attr("rx", itoa(s.r))
	}
	sw.attr("fill", s.fill)
	sw.stroke(s, "")
	sw.attrIf("stroke-dasharray", s.dash)
	sw.raw("></rect>")
}

func (sw svgWriter) textShape(s *shape) {
	sw.raw("<text")
	sw.attr("x", itoa(s.x1))
	sw.attr("y", itoa(s.y1))
	sw.attr("fill", s.fill)
	if s.size != 0 {
		sw.attr("font-size", itoa(s.size))
	}
	if s.bold {
		sw.raw(` font-weight="700"`)
	}
	if s.italic {
		sw.raw(` font-style="italic"`)
	}
	sw.attrIf("text-anchor", s.anchor)
	if s.halo != "" {
		sw.attr("stroke", s.halo)
		sw.raw(` stroke-width="4" stroke-linejoin="round" paint-order="stroke"`)
	}
	sw.raw(">")
	sw.text(s.text)
	sw.raw("</text>")
}

func itoa(i int) string { return strconv.Itoa(i) }
