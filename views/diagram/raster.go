package diagram

import (
	"image"
	"image/color"
	"image/draw"
	"math"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/image/vector"
)

// canvas is the raster renderer of the diagram's display list: it draws
// shapes onto an RGBA image, every coordinate scaled by k and moved by
// (ox, oy), as the browser would draw the SVG at that zoom. Strokes follow
// SVG's defaults (butt caps) and its dashes; text uses the Go fonts.
type canvas struct {
	img    *image.RGBA
	clip   image.Rectangle // drawing lands only here
	k      float64
	ox, oy float64
	faint  float64 // 0, or the opacity of a faint band's shapes
	z      vector.Rasterizer
	polys  [][]point // the outline being built, in device pixels
	fonts  faces
	mask   *image.Alpha // reused by text
	halo   *image.Alpha // reused by text: the mask grown
	spread []uint8      // reused by grow
}

// newCanvas is a white picture w×h, on pixels from the pool if it has
// enough.
func newCanvas(w, h int) *canvas {
	n := 4 * w * h
	var pix []byte
	if p, ok := pixels.Get().(*[]byte); ok && cap(*p) >= n {
		pix = (*p)[:n]
	} else {
		pix = make([]byte, n)
	}
	if n > 0 { // white: 0xff everywhere, copied in doubling runs
		pix[0] = 0xff
		for done := 1; done < n; done *= 2 {
			copy(pix[done:], pix[:done])
		}
	}
	img := &image.RGBA{Pix: pix, Stride: 4 * w, Rect: image.Rect(0, 0, w, h)}
	return &canvas{img: img, clip: img.Bounds(), k: 1, fonts: faces{}}
}

// pixels keeps the pixels of pictures already encoded for the next one:
// a full-size picture is megabytes, which cost more to allocate and clear
// than to paint white.
var pixels sync.Pool

// release gives the picture's pixels back to the pool; the picture must
// not be used after.
func (c *canvas) release() {
	pix := c.img.Pix
	c.img = nil
	pixels.Put(&pix)
}

// at places a point of the layout on the image.
func (c *canvas) at(x, y float64) point { return point{c.ox + x*c.k, c.oy + y*c.k} }

// shapes draws a list of shapes in order.
func (c *canvas) shapes(list []shape) {
	for i := range list {
		c.shape(&list[i])
	}
}

func (c *canvas) shape(s *shape) {
	switch s.kind {
	case shLine:
		c.stroke([]point{c.at(float64(s.x1), float64(s.y1)), c.at(float64(s.x2), float64(s.y2))}, false, s)
	case shPoly:
		pts := make([]point, len(s.pts))
		for i, p := range s.pts {
			pts[i] = c.at(p.x, p.y)
		}
		c.polys = append(c.polys[:0], pts)
		c.fill(s.fill)
		c.stroke(pts, true, s)
	case shPath:
		if len(s.pts) == 4 {
			c.stroke(c.cubic(s.pts), false, s)
		}
	case shCircle:
		c.circle(s)
	case shRect:
		c.rect(s)
	case shText:
		c.text(s)
	}
}

// circle fills a disc and strokes its rim as a ring.
func (c *canvas) circle(s *shape) {
	o, r := c.at(float64(s.x1), float64(s.y1)), float64(s.r)*c.k
	c.polys = append(c.polys[:0], disc(o, r))
	c.fill(s.fill)
	if s.stroke == "" {
		return
	}
	hw := c.width(s) / 2
	c.polys = append(c.polys[:0], disc(o, r+hw), reverse(disc(o, max(0, r-hw))))
	c.fill(s.stroke)
}

// rect fills a (rounded) rectangle and strokes its outline: a ring, or
// the dashes along it.
func (c *canvas) rect(s *shape) {
	a := c.at(float64(s.x1), float64(s.y1))
	w, h, r := float64(s.x2)*c.k, float64(s.y2)*c.k, float64(s.r)*c.k
	if col, ok := c.colour(s.fill); ok && r == 0 && whole(a.x) && whole(a.y) && whole(w) && whole(h) {
		// on the pixel grid: no edge to smooth, so a plain fill
		rect := image.Rect(int(math.Round(a.x)), int(math.Round(a.y)), int(math.Round(a.x+w)), int(math.Round(a.y+h)))
		draw.Draw(c.img, rect.Intersect(c.clip), image.NewUniform(col), image.Point{}, draw.Src)
	} else {
		c.polys = append(c.polys[:0], roundRect(a.x, a.y, w, h, r))
		c.fill(s.fill)
	}
	if s.stroke == "" {
		return
	}
	if s.dash != "" {
		c.stroke(roundRect(a.x, a.y, w, h, r), true, s)
		return
	}
	hw := c.width(s) / 2
	c.polys = append(c.polys[:0], roundRect(a.x-hw, a.y-hw, w+2*hw, h+2*hw, r+hw),
		reverse(roundRect(a.x+hw, a.y+hw, max(0, w-2*hw), max(0, h-2*hw), max(0, r-hw))))
	c.fill(s.stroke)
}

// width is a shape's stroke width on the image; SVG's default is 1.
func (c *canvas) width(s *shape) float64 {
	w, err := strconv.ParseFloat(s.width, 64)
	if err != nil {
		w = 1
	}
	return w * c.k
}

// stroke draws a polyline (closed: a polygon's outline) with the shape's
// stroke, dashed when it has a dash array: a quad per segment, a disc at
// each joint, all one outline so that overlaps are painted once.
func (c *canvas) stroke(pts []point, closed bool, s *shape) {
	if s.stroke == "" || len(pts) < 2 {
		return
	}
	if closed {
		pts = append(pts[:len(pts):len(pts)], pts[0])
	}
	hw := c.width(s) / 2
	c.polys = c.polys[:0]
	for _, run := range c.dashes(pts, s.dash) {
		for i := 1; i < len(run); i++ {
			c.polys = append(c.polys, quad(run[i-1], run[i], hw))
			if i > 1 || closed && len(run) == len(pts) {
				c.polys = append(c.polys, disc(run[i-1], hw))
			}
		}
	}
	c.fill(s.stroke)
}

// dashes cuts a polyline into the runs its dash array paints ("4 3": 4
// on, 3 off, in layout units); without one it is a single run.
func (c *canvas) dashes(pts []point, dash string) [][]point {
	var pattern []float64
	for _, f := range strings.Fields(strings.ReplaceAll(dash, ",", " ")) {
		if v, err := strconv.ParseFloat(f, 64); err == nil && v > 0 {
			pattern = append(pattern, v*c.k)
		}
	}
	if len(pattern) == 0 {
		return [][]point{pts}
	}
	var runs [][]point
	k, left, on := 0, pattern[0], true
	cur := []point{pts[0]}
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		seg := math.Hypot(b.x-a.x, b.y-a.y)
		for pos := 0.0; seg-pos > 1e-9; {
			step := min(left, seg-pos)
			pos += step
			left -= step
			p := point{a.x + (b.x-a.x)*pos/seg, a.y + (b.y-a.y)*pos/seg}
			if on {
				cur = append(cur, p)
			}
			if left <= 1e-9 {
				if on && len(cur) > 1 {
					runs = append(runs, cur)
				}
				on, k = !on, (k+1)%len(pattern)
				left, cur = pattern[k], []point{p}
			}
		}
	}
	if on && len(cur) > 1 {
		runs = append(runs, cur)
	}
	return runs
}

// cubic flattens a Bézier curve of the layout into a polyline on the image.
func (c *canvas) cubic(p []point) []point {
	const n = 24
	out := make([]point, 0, n+1)
	for i := 0; i <= n; i++ {
		t := float64(i) / n
		u := 1 - t
		x := u*u*u*p[0].x + 3*u*u*t*p[1].x + 3*u*t*t*p[2].x + t*t*t*p[3].x
		y := u*u*u*p[0].y + 3*u*u*t*p[1].y + 3*u*t*t*p[2].y + t*t*t*p[3].y
		out = append(out, c.at(x, y))
	}
	return out
}

// fill paints the outline in c.polys with colour col (an SVG "#rrggbb").
// The rasterizer adds the windings and clamps: polygons turning the same
// way paint once where they overlap, one turning the other way cuts a hole.
func (c *canvas) fill(col string) {
	rgba, ok := c.colour(col)
	if !ok || len(c.polys) == 0 {
		return
	}
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, poly := range c.polys {
		for _, p := range poly {
			minX, minY, maxX, maxY = min(minX, p.x), min(minY, p.y), max(maxX, p.x), max(maxY, p.y)
		}
	}
	r := image.Rect(int(math.Floor(minX)), int(math.Floor(minY)), int(math.Ceil(maxX)), int(math.Ceil(maxY))).Intersect(c.clip)
	if r.Empty() {
		return
	}
	src := image.NewUniform(rgba)
	if bands := c.bands(r); bands != nil {
		for _, b := range bands {
			c.rasterize(b, src, true)
		}
		return
	}
	c.rasterize(r, src, false)
}

// rasterize fills the outline in c.polys within r. A band of a larger
// shape (float) is drawn in floating-point math as the whole would be.
func (c *canvas) rasterize(r image.Rectangle, src *image.Uniform, float bool) {
	if float { // the rasterizer does floating-point math when it is this wide
		c.z.Reset(max(r.Dx(), floatWidth), r.Dy())
	} else {
		c.z.Reset(r.Dx(), r.Dy())
	}
	c.z.DrawOp = draw.Over
	ox, oy := float64(r.Min.X), float64(r.Min.Y)
	for _, poly := range c.polys {
		if len(poly) == 0 {
			continue
		}
		c.z.MoveTo(float32(poly[0].x-ox), float32(poly[0].y-oy))
		for _, p := range poly[1:] {
			c.z.LineTo(float32(p.x-ox), float32(p.y-oy))
		}
		c.z.ClosePath()
	}
	c.z.Draw(c.img, r, src, image.Point{})
}

// bandRows is the height of the bands a long slanted shape is drawn in.
const bandRows = 16

// floatWidth is the least width or height at which the rasterizer
// switches from fixed-point math to floating-point: the two round
// differently, by a few levels at an edge.
const floatWidth = 513

// bands cuts r, the box of the outline in c.polys, into bands of rows,
// each as wide as the outline is within it, when that leaves out most of
// the box: the rasterizer blends every pixel of the box it is given, and
// a long diagonal stroke's box is nearly all empty. Nil: draw r whole.
// Only a shape the rasterizer draws in floating-point math is cut, so
// that its bands are drawn the same way.
func (c *canvas) bands(r image.Rectangle) []image.Rectangle {
	if r.Dx() < 4*bandRows || r.Dy() < 4*bandRows || max(r.Dx(), r.Dy()) < floatWidth {
		return nil
	}
	var out []image.Rectangle
	area := 0
	for y := r.Min.Y; y < r.Max.Y; y += bandRows {
		y1 := min(y+bandRows, r.Max.Y)
		lo, hi := c.spanX(float64(y), float64(y1))
		if lo > hi {
			continue
		}
		b := image.Rect(int(math.Floor(lo))-1, y, int(math.Ceil(hi))+1, y1).Intersect(r)
		if !b.Empty() {
			out = append(out, b)
			area += b.Dx() * b.Dy()
		}
	}
	if 2*area > r.Dx()*r.Dy() {
		return nil
	}
	return out
}

// spanX is how far left and right the outline in c.polys reaches
// between rows y0 and y1; lo > hi where it does not.
func (c *canvas) spanX(y0, y1 float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, poly := range c.polys {
		for i, a := range poly {
			b := poly[(i+1)%len(poly)]
			if a.y > b.y {
				a, b = b, a
			}
			if b.y < y0 || a.y > y1 {
				continue
			}
			if b.y-a.y < 1e-9 {
				lo, hi = min(lo, a.x, b.x), max(hi, a.x, b.x)
				continue
			}
			for _, y := range [2]float64{max(a.y, y0), min(b.y, y1)} {
				x := a.x + (b.x-a.x)*(y-a.y)/(b.y-a.y)
				lo, hi = min(lo, x), max(hi, x)
			}
		}
	}
	return lo, hi
}

// colour parses "#rrggbb", faded towards white in a faint band; "" and
// "none" paint nothing.
func (c *canvas) colour(s string) (color.RGBA, bool) {
	if len(s) != 7 || s[0] != '#' {
		return color.RGBA{}, false
	}
	v, err := strconv.ParseUint(s[1:], 16, 32)
	if err != nil {
		return color.RGBA{}, false
	}
	rgb := [3]float64{float64(v >> 16 & 0xff), float64(v >> 8 & 0xff), float64(v & 0xff)}
	if c.faint > 0 {
		for i := range rgb {
			rgb[i] = 255 - (255-rgb[i])*c.faint
		}
	}
	return color.RGBA{uint8(math.Round(rgb[0])), uint8(math.Round(rgb[1])), uint8(math.Round(rgb[2])), 255}, true
}

// quad is a segment stroked hw to either side, turning the positive way.
func quad(a, b point, hw float64) []point {
	l := math.Hypot(b.x-a.x, b.y-a.y)
	if l == 0 {
		return nil
	}
	nx, ny := -(b.y-a.y)/l*hw, (b.x-a.x)/l*hw
	return positive([]point{{a.x + nx, a.y + ny}, {b.x + nx, b.y + ny}, {b.x - nx, b.y - ny}, {a.x - nx, a.y - ny}})
}

// disc is a circle as a polygon fine enough for its size, turning positive.
func disc(o point, r float64) []point {
	if r <= 0 {
		return nil
	}
	n := max(12, int(r*2.5))
	pts := make([]point, n)
	for i := range pts {
		a := 2 * math.Pi * float64(i) / float64(n)
		pts[i] = point{o.x + r*math.Cos(a), o.y + r*math.Sin(a)}
	}
	return pts
}

// roundRect is a rectangle with corners of radius r, turning positive.
func roundRect(x, y, w, h, r float64) []point {
	r = min(r, w/2, h/2)
	if r <= 0.25 {
		return []point{{x, y}, {x + w, y}, {x + w, y + h}, {x, y + h}}
	}
	var pts []point
	corners := [4]point{{x + w - r, y + r}, {x + w - r, y + h - r}, {x + r, y + h - r}, {x + r, y + r}}
	for k, o := range corners {
		for i := 0; i <= 6; i++ {
			a := math.Pi/2*float64(k-1) + math.Pi/2*float64(i)/6
			pts = append(pts, point{o.x + r*math.Cos(a), o.y + r*math.Sin(a)})
		}
	}
	return pts
}

// positive makes a polygon turn the positive way (clockwise on screen).
func positive(pts []point) []point {
	a := 0.0
	for i, p := range pts {
		q := pts[(i+1)%len(pts)]
		a += p.x*q.y - q.x*p.y
	}
	if a < 0 {
		return reverse(pts)
	}
	return pts
}

func reverse(pts []point) []point {
	for i, j := 0, len(pts)-1; i < j; i, j = i+1, j-1 {
		pts[i], pts[j] = pts[j], pts[i]
	}
	return pts
}

// colourOrBlack is colour for a known-good constant.
func (c *canvas) colourOrBlack(s string) color.RGBA {
	col, _ := c.colour(s)
	return col
}

// whole reports whether v lies on the pixel grid.
func whole(v float64) bool { return math.Abs(v-math.Round(v)) < 1e-6 }
