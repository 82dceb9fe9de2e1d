package diagram

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"io"
	"math"

	"fencelab/lab"
)

// Size says which raster picture PNG draws.
type Size uint8

const (
	// Card is 1200×630, the size link previews (Open Graph, Twitter cards)
	// show: the title and the verdict in large type over the diagram.
	Card Size = iota
	// Full is the standalone diagram, as the .svg export draws it, at twice
	// its natural size so that it stays sharp in a document or on a slide.
	Full
)

// Card geometry, in pixels.
const (
	CardWidth  = 1200
	CardHeight = 630
	cardMargin = 48
	cardTop    = 176 // where the diagram starts, under the title and verdict
	fullScale  = 2
)

// maxFullArea bounds the full picture, in pixels: a very long run is drawn
// smaller, not refused. A variable for the tests.
var maxFullArea = 12 << 20

// PNG writes the space-time diagram under policy p as a PNG image. It
// draws the same layout as the SVG (layoutDiagram), with the raster
// renderer of raster.go. Like SVG, it draws an unknown policy as the first
// of lab.Policies.
func PNG(w io.Writer, s *lab.Scenario, t *lab.Trace, p lab.Policy, size Size) error {
	c, err := picture(s, t, p, size)
	if err != nil {
		return err
	}
	defer c.release()
	return encodePNG(w, c.img)
}

// Image draws the picture PNG encodes.
func Image(s *lab.Scenario, t *lab.Trace, p lab.Policy, size Size) (*image.RGBA, error) {
	c, err := picture(s, t, p, size)
	if err != nil {
		return nil, err
	}
	return c.img, nil
}

// picture draws the picture of the given size on a new canvas.
func picture(s *lab.Scenario, t *lab.Trace, p lab.Policy, size Size) (*canvas, error) {
	if _, err := goFonts(); err != nil {
		return nil, fmt.Errorf("load fonts: %w", err)
	}
	if size == Card {
		return card(s, t, p), nil
	}
	d := layoutDiagram(s, t, p, true, nil)
	k := math.Min(fullScale, math.Sqrt(float64(maxFullArea)/float64(d.width*d.height)))
	c := newCanvas(int(math.Ceil(float64(d.width)*k)), int(math.Ceil(float64(d.height)*k)))
	c.k = k
	c.diagram(d)
	return c, nil
}

// diagram draws the display list in the SVG's order: washes, lanes,
// spans, flights, header, bands, footer.
func (c *canvas) diagram(d *diagram) {
	for _, b := range d.bands {
		if b.fill != "" {
			c.shape(&shape{kind: shRect, x1: 0, y1: b.y, x2: d.width, y2: b.h, fill: b.fill})
		}
	}
	for _, groups := range [][]group{d.lanes, d.spans, d.flights} {
		for i := range groups {
			c.shapes(groups[i].shapes)
		}
	}
	c.shapes(d.header)
	for _, b := range d.bands {
		if b.faint {
			c.faint = 0.55
		}
		for i := range b.groups {
			c.shapes(b.groups[i].shapes)
		}
		c.faint = 0
	}
	c.shapes(d.footer)
}

// card draws the 1200×630 preview: a strip in the verdict's colour, the
// title, the verdict, and under them the diagram without its own caption,
// as large as fits; a diagram too long to fit fades out at the bottom.
func card(s *lab.Scenario, t *lab.Trace, p lab.Policy) *canvas { return cardWith(s, t, p, nil) }

// cardWith is card, of an imported timeline when im is not nil.
func cardWith(s *lab.Scenario, t *lab.Trace, p lab.Policy, im *Imported) *canvas {
	d := layoutWith(s, t, p, false, nil, im)
	c := newCanvas(CardWidth, CardHeight)
	broken := len(t.Summary[d.policy].Violations) > 0
	strip := colGood
	if broken {
		strip = colViol
	}
	title := shape{kind: shText, x1: cardMargin, y1: 112, text: clip(s.Title, lab.MaxTitle), fill: colInk, size: 40, bold: true}
	verdict := shape{kind: shText, x1: cardMargin, y1: 154, text: "Policy " + string(d.policy) + " · " + d.verdict,
		fill: strip, size: 28, bold: true}
	if im != nil {
		verdict.text, strip = importedHeadline(t, d.policy, im)
		verdict.fill = strip
	}
	c.fit(&title, 30)
	c.fit(&verdict, 22)
	c.shapes([]shape{
		{kind: shRect, x1: 0, y1: 0, x2: CardWidth, y2: 10, fill: strip},
		{kind: shText, x1: cardMargin, y1: 62, text: "fencelab · leases and fencing tokens", fill: colMuted, size: 22},
		title, verdict,
	})
	areaW, areaH := float64(CardWidth-2*cardMargin), float64(CardHeight-cardTop-16)
	h := float64(d.height - captionH) // the card says the caption in large type
	k := min(areaW/float64(d.width), areaH/h, 1.4)
	k = max(k, min(areaW/float64(d.width), 0.6)) // keep words legible; crop instead
	c.k = k
	c.ox = float64(CardWidth)/2 - float64(d.width)*k/2
	c.oy = cardTop - captionH*k
	c.clip = image.Rect(0, cardTop, CardWidth, CardHeight)
	c.diagram(d)
	if h*k > areaH+16 {
		fade(c.img, CardHeight-72, CardHeight)
	}
	return c
}

// fit makes a line of the card fit between the margins: a smaller size
// down to least, then fewer words ending in "…".
func (c *canvas) fit(s *shape, least int) {
	room := float64(CardWidth - 2*cardMargin)
	for ; s.size > least && c.measure(s) > room; s.size-- {
	}
	for n := len([]rune(s.text)) - 1; n > 4 && c.measure(s) > room; n-- {
		s.text = clip(s.text, n)
	}
}

// fade whitens rows y0..y1 more and more, down to white.
func fade(img *image.RGBA, y0, y1 int) {
	for y := y0; y < y1; y++ {
		a := uint8(255 * float64(y-y0+1) / float64(y1-y0))
		draw.Draw(img, image.Rect(0, y, img.Rect.Dx(), y+1), image.NewUniform(color.NRGBA{255, 255, 255, a}), image.Point{}, draw.Over)
	}
}
