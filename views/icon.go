package views

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"image"
	"image/png"
	"strings"
	"sync"
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
var IconSVG = sync.OnceValue(func() []byte {
	d := &diagram{header: iconShapes()}
	d.svgPaths()
	var b bytes.Buffer
	b.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32" width="32" height="32">`)
	_ = diagramShapes(d.header).Render(context.Background(), &b)
	b.WriteString("</svg>\n")
	return b.Bytes()
})

// IconImage draws the icon at size×size pixels on a transparent ground.
func IconImage(size int) *image.RGBA {
	c := &canvas{img: image.NewRGBA(image.Rect(0, 0, size, size)), k: float64(size) / 32, fonts: faces{}}
	c.clip = c.img.Rect
	c.shapes(iconShapes())
	return c.img
}

// IconPNG is the icon as a PNG of size×size pixels.
func IconPNG(size int) []byte {
	var b bytes.Buffer
	_ = png.Encode(&b, IconImage(size)) // a bytes.Buffer does not fail
	return b.Bytes()
}

// FaviconICO is /favicon.ico: the icon at 16, 32 and 48 pixels, each a
// PNG inside the ICO container, which every browser reads.
var FaviconICO = sync.OnceValue(func() []byte {
	sizes := []int{16, 32, 48}
	var head, body bytes.Buffer
	le := binary.LittleEndian
	head.Write(le.AppendUint16(le.AppendUint16(le.AppendUint16(nil, 0), 1), uint16(len(sizes))))
	offset := 6 + 16*len(sizes)
	for _, n := range sizes {
		p := IconPNG(n)
		entry := []byte{byte(n), byte(n), 0, 0}
		entry = le.AppendUint16(le.AppendUint16(entry, 1), 32)
		entry = le.AppendUint32(le.AppendUint32(entry, uint32(len(p))), uint32(offset))
		head.Write(entry)
		body.Write(p)
		offset += len(p)
	}
	return append(head.Bytes(), body.Bytes()...)
})

// Manifest is the web app manifest: name, colours and icons, so that a
// lab bookmarked or added to a home screen shows its icon.
func Manifest() []byte {
	return []byte(fmt.Sprintf(strings.TrimSpace(`
{
  "name": "fencelab",
  "short_name": "fencelab",
  "description": "A lab for the lease that ended before the process stopped: replay an order of events under eight protection policies.",
  "start_url": %[1]q,
  "scope": %[1]q,
  "display": "standalone",
  "background_color": "#ffffff",
  "theme_color": "#16191f",
  "icons": [
    {"src": %[2]q, "type": "image/svg+xml", "sizes": "any"},
    {"src": %[3]q, "type": "image/png", "sizes": "192x192"},
    {"src": %[4]q, "type": "image/png", "sizes": "512x512"}
  ]
}`), HomePath(), IconSVGPath(), Icon192Path(), Icon512Path()) + "\n")
}
