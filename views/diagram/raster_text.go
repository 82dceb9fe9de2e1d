package diagram

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

func (f faces) get(style fontStyle, size float64) (font.Face, faceKey, error) {
	key := faceKey{style, fixed.Int26_6(math.Round(size * 64))}
	if face, ok := f[key]; ok {
		return face, key, nil
	}
	fonts, err := goFonts()
	if err != nil {
		return nil, key, err
	}
	face, err := opentype.NewFace(fonts[style], &opentype.FaceOptions{Size: float64(key.size) / 64, DPI: 72, Hinting: font.HintingNone})
	if err != nil {
		return nil, key, err
	}
	f[key] = face
	return face, key, nil
}

// face is the face a text shape is drawn in, and its key.
func (c *canvas) face(s *shape) (font.Face, faceKey, error) {
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
	face, _, err := c.face(s)
	if err != nil {
		return 0
	}
	return float64(font.MeasureString(face, s.text)) / 64
}

// text draws a label: its halo first (the SVG's wide stroke in the colour
// behind it, here the glyphs' mask grown by the stroke's half width), then
// the glyphs, anchored at the start, middle or end as in the SVG.
func (c *canvas) text(s *shape) {
	face, key, err := c.face(s)
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
	mask := c.glyphs(face, key, r, fixed.Point26_6{X: fixed.Int26_6(math.Round(p.x * 64)), Y: fixed.I(int(math.Round(p.y)))}, s.text)
	dst := r.Intersect(c.clip)
	if col, ok := c.colour(s.halo); ok && halo > 0 {
		grown := c.grow(mask, halo)
		draw.DrawMask(c.img, dst, image.NewUniform(col), image.Point{}, grown, dst.Min, draw.Over)
	}
	if col, ok := c.colour(s.fill); ok {
		draw.DrawMask(c.img, dst, image.NewUniform(col), image.Point{}, mask, dst.Min, draw.Over)
	}
}

// glyphs renders text into an alpha mask covering r, with its baseline
// starting at dot.
func (c *canvas) glyphs(face font.Face, key faceKey, r image.Rectangle, dot fixed.Point26_6, text string) *image.Alpha {
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
		g := glyphAt(face, key, dot, ch)
		if g.mask != nil {
			at := image.Point{X: dot.X.Floor(), Y: dot.Y.Floor()}
			dr := g.dr.Add(at)
			addAlpha(m, dr.Intersect(r), g.mask, dr.Intersect(r).Min.Sub(dr.Min))
		}
		dot.X += g.adv
		prev = ch
	}
	return m
}

// A glyphMask is a rune rendered in one face at one sub-pixel offset: its
// mask, placed relative to the whole pixel the pen stands in, and how far
// it moves the pen. The same labels are drawn in every picture, so the
// masks are kept for the life of the process; glyphLimit bounds them
// (every rune of every title would otherwise stay): the two built-in
// pictures at every size and policy keep under 2,000, some 260 KB; the
// limit is a few MB at most.
type glyphMask struct {
	dr   image.Rectangle
	mask *image.Alpha // nil: nothing to draw
	adv  fixed.Int26_6
}

type glyphKey struct {
	face faceKey
	ch   rune
	frac fixed.Point26_6 // where the pen stands within its pixel
}

const glyphLimit = 1 << 13

var glyphCache = struct {
	sync.RWMutex
	m map[glyphKey]glyphMask
}{m: map[glyphKey]glyphMask{}}

// glyphAt renders ch with the pen at dot, or finds it rendered. A face
// draws the same mask at every whole-pixel position with the same
// fraction (it places the outline in 26.6 fixed point), so the cached
// mask is the one face.Glyph would draw here.
func glyphAt(face font.Face, key faceKey, dot fixed.Point26_6, ch rune) glyphMask {
	k := glyphKey{key, ch, fixed.Point26_6{X: dot.X & 63, Y: dot.Y & 63}}
	glyphCache.RLock()
	g, ok := glyphCache.m[k]
	glyphCache.RUnlock()
	if ok {
		return g
	}
	dr, gm, gp, adv, ok := face.Glyph(k.frac, ch)
	g.adv = adv
	if a, isAlpha := gm.(*image.Alpha); (ok || gm != nil) && isAlpha && !dr.Empty() {
		g.dr = dr
		g.mask = image.NewAlpha(image.Rect(0, 0, dr.Dx(), dr.Dy()))
		for y := range dr.Dy() {
			copy(g.mask.Pix[y*g.mask.Stride:][:dr.Dx()], a.Pix[a.PixOffset(gp.X, gp.Y+y):])
		}
	}
	glyphCache.Lock()
	if len(glyphCache.m) >= glyphLimit {
		clear(glyphCache.m)
	}
	glyphCache.m[k] = g
	glyphCache.Unlock()
	return g
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
// one can tell from a round one under text), for halos. The result is
// c.halo, valid until the next call. Each pass spreads the pixels that
// have ink into their neighbours: most of a label's box has none.
func (c *canvas) grow(m *image.Alpha, n int) *image.Alpha {
	w, h := m.Rect.Dx(), m.Rect.Dy()
	if cap(c.spread) < w*h {
		c.spread = make([]uint8, w*h)
		c.halo = image.NewAlpha(image.Rect(0, 0, w, h))
	}
	tmp := c.spread[:w*h]
	clear(tmp)
	for y := range h {
		row, dst := m.Pix[y*m.Stride:][:w], tmp[y*w:][:w]
		for x, v := range row {
			if v == 0 {
				continue
			}
			for i := max(0, x-n); i <= min(w-1, x+n); i++ {
				dst[i] = max(dst[i], v)
			}
		}
	}
	out := c.halo
	out.Pix, out.Stride, out.Rect = out.Pix[:w*h], w, m.Rect
	clear(out.Pix)
	for y := range h {
		for x, v := range tmp[y*w:][:w] {
			if v == 0 {
				continue
			}
			for j := max(0, y-n); j <= min(h-1, y+n); j++ {
				out.Pix[j*w+x] = max(out.Pix[j*w+x], v)
			}
		}
	}
	return out
}
