package diagram

import (
	"fmt"
	"io"
)

// Bar is one line of a bar card: a label, a bar of parts that add up to
// 100, and words beside it.
type Bar struct {
	Label string
	Parts []BarPart
	Words string
	Bad   bool // the words are a failure, drawn in red
}

// BarPart is one stretch of a bar: its share in percent and its colour.
type BarPart struct {
	Share float64
	Fill  string
}

// Bar card geometry, in pixels.
const (
	barTop    = 150
	barLabelW = 250
	barW      = 360
)

// BarsPNG writes a 1200×630 card of bars under a title, as a PNG: the
// explorer's link preview, one bar per policy. Rows share the room under
// the title; their type stays at 24px or more so that it reads at 400
// pixels wide.
func BarsPNG(w io.Writer, kicker, title string, bars []Bar) error {
	if _, err := goFonts(); err != nil {
		return fmt.Errorf("load fonts: %w", err)
	}
	c := newCanvas(CardWidth, CardHeight)
	defer c.release()
	t := shape{kind: shText, x1: cardMargin, y1: 108, text: clip(title, 120), fill: colInk, size: 40, bold: true}
	c.fit(&t, 28)
	c.shapes([]shape{
		{kind: shRect, x1: 0, y1: 0, x2: CardWidth, y2: 10, fill: colInfo},
		{kind: shText, x1: cardMargin, y1: 58, text: kicker, fill: colMuted, size: 22},
		t,
	})
	rowH := min(64, (CardHeight-barTop-16)/max(1, len(bars)))
	for i, b := range bars {
		c.bar(b, barTop+i*rowH, rowH)
	}
	return encodePNG(w, c.img)
}

// bar draws one row at y, rowH tall.
func (c *canvas) bar(b Bar, y, rowH int) {
	size := min(28, rowH*2/3)
	mid := y + rowH/2
	label := shape{kind: shText, x1: cardMargin, y1: mid + size/3, text: b.Label, fill: colInk, size: size, bold: true}
	c.fitIn(&label, barLabelW-12, 18)
	c.shape(&label)
	x0, h := cardMargin+barLabelW, rowH*3/5
	x := float64(x0)
	for _, p := range b.Parts {
		pw := p.Share * barW / 100
		c.shape(&shape{kind: shRect, x1: int(x), y1: mid - h/2, x2: max(1, int(x+pw)-int(x)), y2: h, fill: p.Fill})
		x += pw
	}
	c.shape(&shape{kind: shRect, x1: x0, y1: mid - h/2, x2: barW, y2: h, stroke: colResource, width: "1.5"})
	col := colGood
	if b.Bad {
		col = colViol
	}
	words := shape{kind: shText, x1: x0 + barW + 20, y1: mid + size/3, text: b.Words, fill: col, size: size, bold: true}
	c.fitIn(&words, CardWidth-cardMargin-words.x1, 16)
	c.shape(&words)
}
