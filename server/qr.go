package server

import (
	"fmt"
	"strconv"
	"strings"

	"rsc.io/qr"
)

// qrSVG draws text as a QR code: an SVG element, one path of black
// modules on white with the four-module quiet zone the standard asks for,
// drawn here so that no outside service sees the room's link.
func qrSVG(text string) (string, error) {
	code, err := qr.Encode(text, qr.M)
	if err != nil {
		return "", fmt.Errorf("QR code of %q: %w", text, err)
	}
	const quiet = 4
	n := code.Size + 2*quiet
	var path strings.Builder
	for y := range code.Size {
		for x := 0; x < code.Size; x++ {
			if !code.Black(x, y) {
				continue
			}
			run := 1
			for x+run < code.Size && code.Black(x+run, y) {
				run++
			}
			fmt.Fprintf(&path, "M%d %dh%dv1h-%dz", x+quiet, y+quiet, run, run)
			x += run - 1
		}
	}
	size := strconv.Itoa(n)
	return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ` + size + ` ` + size + `" shape-rendering="crispEdges" aria-hidden="true">` +
		`<rect width="` + size + `" height="` + size + `" fill="#fff"/>` +
		`<path fill="#000" d="` + path.String() + `"/></svg>`, nil
}
