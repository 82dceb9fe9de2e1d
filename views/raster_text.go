package views

import (
	"image"
	"image/draw"
	"math"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goitalic"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// The raster renderer draws text in the Go fonts, which ship inside the
// binary: the picture looks the same on every server.

type fontStyle uint8

const (
	regular fontStyle = iota
	bold
	italic
)

// goFonts parses the three fonts once; a parsed font is safe to share.
var goFonts = sync.OnceValues(func() ([3]*opentype.Font, error) {
	var out [3]*opentype.Font
	for i, ttf := range [][]byte{goregular.TTF, gobold.TTF, goitalic.TTF} {
		f, err := opentype.Parse(ttf)
		if err != nil {
			return out, err
		}
		out[i] = f
	}
	return out, nil
})

// faces are the faces one canvas has opened: a face keeps buffers and is
// not safe to share between goroutines.
type faces map[faceKey]font.Face

type faceKey struct {
	style fontStyle
	size  fixed.Int26_6
}

func (f faces) get(style fontStyle, size float64) (font.Face, error) {
	key := faceKey{style, fixed.Int26_6(math.Round(size * 64))}
	if face, ok := f[key]; ok {
		return face, nil
	}
	fonts, err := goFonts()
	if err != nil {
		return nil, err
	}
	face, err := opentype.NewFace(fonts[style], &opentype.FaceOptions{Size: float64(key.size) / 64, DPI: 72, Hinting: font.HintingNone})
	if err != nil {
		return nil, err
	}
	f[key] = face
	return face, nil
}

// face is the face a text shape is drawn in.
func (c *canvas) face(s *shape) (font.Face, error) {
	size := float64(s.size)
	if size == 0 {
		size = 13
	}
	style := regular
	switch {
	case s.bold:
		style = bold
	case s.italic:
		style = italic
	}
	return c.fonts.get(style, size*c.k)
}

// measure is the width of a text shape on the image, in pixels.
func (c *canvas) measure(s *shape) float64 {
	face, err := c.face(s)
	if err != nil {
		return 0
	}
	return float64(font.MeasureString(face, s.text)) / 64
}

// text draws a label: its halo first (the SVG's wide stroke in the colour
// behind it, here the glyphs' mask grown by the stroke's half width), then
// the glyphs, anchored at the start, middle or end as in the SVG.
func (c *canvas) text(s *shape) {
	face, err := c.face(s)
	if err != nil {
		return
	}
	p := c.at(float64(s.x1), float64(s.y1))
	adv := font.MeasureString(face, s.text)
	switch s.anchor {
	case "middle":
		p.x -= float64(adv) / 128
	case "end":
		p.x -= float64(adv) / 64
	}
	halo := 0
	if s.halo != "" {
		halo = int(math.Ceil(2 * c.k))
	}
	m := face.Metrics()
	r := image.Rect(int(math.Floor(p.x))-halo-1, int(math.Round(p.y))-m.Ascent.Ceil()-halo-1,
		int(math.Ceil(p.x+float64(adv)/64))+halo+2, int(math.Round(p.y))+m.Descent.Ceil()+halo+1)
	if !r.Overlaps(c.clip) {
		return
	}
	mask := c.glyphs(face, r, fixed.Point26_6{X: fixed.Int26_6(math.Round(p.x * 64)), Y: fixed.I(int(math.Round(p.y)))}, s.text)
	dst := r.Intersect(c.clip)
	if col, ok := c.colour(s.halo); ok && halo > 0 {
		grown := grow(mask, halo)
		draw.DrawMask(c.img, dst, image.NewUniform(col), image.Point{}, grown, dst.Min, draw.Over)
	}
	if col, ok := c.colour(s.fill); ok {
		draw.DrawMask(c.img, dst, image.NewUniform(col), image.Point{}, mask, dst.Min, draw.Over)
	}
}

// glyphs renders text into an alpha mask covering r, with its baseline
// starting at dot.
func (c *canvas) glyphs(face font.Face, r image.Rectangle, dot fixed.Point26_6, text string) *image.Alpha {
	if c.mask == nil || cap(c.mask.Pix) < r.Dx()*r.Dy() {
		c.mask = image.NewAlpha(r)
	}
	m := c.mask
	m.Pix, m.Stride, m.Rect = m.Pix[:r.Dx()*r.Dy()], r.Dx(), r
	clear(m.Pix)
	prev := rune(-1)
	for _, ch := range text {
		if prev >= 0 {
			dot.X += face.Kern(prev, ch)
		}
		dr, gm, gp, adv, ok := face.Glyph(dot, ch)
		if ok || gm != nil {
			if a, isAlpha := gm.(*image.Alpha); isAlpha {
				addAlpha(m, dr.Intersect(r), a, gp.Add(dr.Intersect(r).Min.Sub(dr.Min)))
			}
		}
		dot.X += adv
		prev = ch
	}
	return m
}

// addAlpha adds glyph coverage src (from sp) into dst over r, saturating.
func addAlpha(dst *image.Alpha, r image.Rectangle, src *image.Alpha, sp image.Point) {
	for y := 0; y < r.Dy(); y++ {
		d := dst.Pix[dst.PixOffset(r.Min.X, r.Min.Y+y):][:r.Dx()]
		s := src.Pix[src.PixOffset(sp.X, sp.Y+y):][:r.Dx()]
		for i, v := range s {
			d[i] = uint8(min(255, int(d[i])+int(v)))
		}
	}
}

// grow spreads a mask by n pixels every way (a square brush, which no
// one can tell from a round one under text), for halos.
func grow(m *image.Alpha, n int) *image.Alpha {
	w, h := m.Rect.Dx(), m.Rect.Dy()
	tmp := make([]uint8, w*h)
	for y := range h {
		row := m.Pix[y*m.Stride:][:w]
		for x := range w {
			v := uint8(0)
			for i := max(0, x-n); i <= min(w-1, x+n); i++ {
				v = max(v, row[i])
			}
			tmp[y*w+x] = v
		}
	}
	out := image.NewAlpha(m.Rect)
	for y := range h {
		for x := range w {
			v := uint8(0)
			for j := max(0, y-n); j <= min(h-1, y+n); j++ {
				v = max(v, tmp[j*w+x])
			}
			out.Pix[y*out.Stride+x] = v
		}
	}
	return out
}
