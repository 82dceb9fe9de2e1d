package views

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image/png"
	"strings"
	"sync"

	"fencelab/views/diagram"
	"fencelab/views/paths"
)

// IconSVG is the icon as a scalable image (/icon.svg), drawn once.
var IconSVG = sync.OnceValue(diagram.IconSVG)

// IconPNG is the icon as a PNG of size×size pixels.
func IconPNG(size int) []byte {
	var b bytes.Buffer
	_ = png.Encode(&b, diagram.IconImage(size)) // a bytes.Buffer does not fail
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
  "description": "A lab for the lease that ended before the process stopped: replay an order of events under nine protection policies.",
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
}`), paths.RouteHome, paths.RouteIconSVG, paths.RouteIcon192, paths.RouteIcon512) + "\n")
}
