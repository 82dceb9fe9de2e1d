package diagram

import (
	"bufio"
	"bytes"
	"image"
)

// The lab's icon is the header's fence (three pickets, two rails) on the
// header's dark blue, drawn as shapes of the diagram's display list in a
// 32-unit box: the SVG icon and every raster size (favicon.ico, the
// manifest's icons) come from this one drawing.

const (
	iconBg    = "#16191f" // the header's --ink
	iconFence = "#7fa4ff"
)

func iconShapes() []shape {
	out := []shape{{kind: shRect, x1: 0, y1: 0, x2: 32, y2: 32, r: 7, fill: iconBg}}
	for _, x := range []float64{4, 13, 22} { // pickets, pointed at the top
		out = append(out, shape{kind: shPoly, fill: iconFence, pts: []point{{x, 9}, {x + 3, 4.5}, {x + 6, 9}, {x + 6, 27}, {x, 27}}})
	}
	for _, y := range []float64{12.5, 19.5} { // rails
		out = append(out, shape{kind: shPoly, fill: iconFence, pts: []point{{2, y}, {30, y}, {30, y + 3}, {2, y + 3}}})
	}
	return out
}

// IconSVG is the icon as a scalable image (/icon.svg).
func IconSVG() []byte {
	d := &diagram{header: iconShapes()}
	d.svgPaths()
	var b bytes.Buffer
	sw := svgWriter{bufio.NewWriter(&b)}
	sw.raw(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32" width="32" height="32">`)
	sw.shapes(d.header)
	sw.raw("</svg>\n")
	_ = sw.w.Flush() // a bytes.Buffer does not fail
	return b.Bytes()
}

// IconImage draws the icon at size×size pixels on a transparent ground.
func IconImage(size int) *image.RGBA {
	c := &canvas{img: image.NewRGBA(image.Rect(0, 0, size, size)), k: float64(size) / 32, fonts: faces{}}
	c.clip = c.img.Rect
	c.shapes(iconShapes())
	return c.img
}
