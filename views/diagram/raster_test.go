package diagram

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"math/rand/v2"
	"testing"

	"golang.org/x/image/math/fixed"
)

// TestGlyphCache checks that a glyph from the cache is the mask the face
// draws at any whole-pixel position with the same fraction.
func TestGlyphCache(t *testing.T) {
	t.Parallel()
	c := newCanvas(1, 1)
	for _, size := range []float64{13, 26, 21.7} {
		face, key, err := c.fonts.get(bold, size)
		if err != nil {
			t.Fatal(err)
		}
		for _, ch := range "Wg·é…" {
			for _, dot := range []fixed.Point26_6{{X: 5, Y: 0}, {X: 64*37 + 21, Y: 64 * 50}, {X: -64*3 - 40, Y: 64 * 7}} {
				glyphAt(face, key, fixed.Point26_6{X: dot.X & 63, Y: dot.Y}, ch) // cached at another place
				g := glyphAt(face, key, dot, ch)
				got := render(g.mask, g.dr.Add(image.Pt(dot.X.Floor(), dot.Y.Floor())))
				dr, gm, gp, adv, _ := face.Glyph(dot, ch)
				want := render(gm.(*image.Alpha).SubImage(image.Rectangle{gp, gp.Add(dr.Size())}).(*image.Alpha), dr)
				if g.adv != adv || !bytes.Equal(got, want) {
					t.Errorf("glyphAt(%v, %q, %v) differs from face.Glyph: advance %v, want %v; masks equal %v", key, ch, dot, g.adv, adv, bytes.Equal(got, want))
				}
			}
		}
	}

}

// render places mask m over r on a fixed 200×200 field around the origin.
func render(m *image.Alpha, r image.Rectangle) []byte {
	field := image.NewAlpha(image.Rect(-100, -100, 100, 100))
	if m != nil {
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				field.SetAlpha(x, y, m.AlphaAt(m.Rect.Min.X+x-r.Min.X, m.Rect.Min.Y+y-r.Min.Y))
			}
		}
	}
	return field.Pix
}

// TestUpFilter checks the word-at-a-time "up" filter against the bytes'
// own differences, for even and odd widths.
func TestUpFilter(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	for _, w := range []int{1, 2, 3, 8, 9, 1884} {
		cur, above := make([]byte, 4*w), make([]byte, 4*w)
		for i := range cur {
			cur[i], above[i] = byte(r.UintN(256)), byte(r.UintN(256))
		}
		out := make([]byte, 3*w+1)
		up(out, cur, above)
		for x := range w {
			for i := range 3 {
				if got, want := out[3*x+i], cur[4*x+i]-above[4*x+i]; got != want {
					t.Fatalf("up(width %d) byte %d of pixel %d = %d, want %d", w, i, x, got, want)
				}
			}
		}
	}
}

// TestEncodePNG checks that image/png decodes what encodePNG writes to
// the same pixels: runs of equal rows (sent as zeros), flat colours,
// noise that fills several IDAT chunks, odd widths, one pixel, and a
// sub-image that does not start at the origin.
func TestEncodePNG(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	shapes := func(w, h int) *image.RGBA {
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
		for range 20 {
			x, y := int(r.UintN(uint(w))), int(r.UintN(uint(h)))
			c := color.RGBA{byte(r.UintN(256)), byte(r.UintN(256)), byte(r.UintN(256)), 0xff}
			draw.Draw(img, image.Rect(x, y, x+int(r.UintN(200)), y+int(r.UintN(60))), image.NewUniform(c), image.Point{}, draw.Src)
		}
		return img
	}
	noise := func(w, h int) *image.RGBA {
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		for i := range img.Pix {
			img.Pix[i] = byte(r.UintN(256))
			if i%4 == 3 {
				img.Pix[i] = 0xff // opaque
			}
		}
		return img
	}
	big := shapes(900, 700)
	cases := map[string]*image.RGBA{
		"one pixel":  shapes(1, 1),
		"one column": shapes(1, 300),
		"shapes":     big,
		"odd width":  shapes(333, 101),
		"sub-image":  big.SubImage(image.Rect(101, 57, 800, 650)).(*image.RGBA),
		"noise":      noise(301, 257),
	}
	for name, img := range cases {
		var buf bytes.Buffer
		if err := encodePNG(&buf, img); err != nil {
			t.Fatalf("encodePNG(%s): %v", name, err)
		}
		got, err := png.Decode(&buf)
		if err != nil {
			t.Fatalf("encodePNG(%s) wrote no PNG image/png reads: %v", name, err)
		}
		b := img.Bounds()
		if got.Bounds().Size() != b.Size() {
			t.Fatalf("encodePNG(%s) is %v, want %v", name, got.Bounds().Size(), b.Size())
		}
		for y := range b.Dy() {
			if rgba, ok := got.(*image.RGBA); ok && bytes.Equal(rgba.Pix[y*rgba.Stride:][:4*b.Dx()], img.Pix[img.PixOffset(b.Min.X, b.Min.Y+y):][:4*b.Dx()]) {
				continue // the row is equal byte for byte: no pixel to look at one by one
			}
			for x := range b.Dx() {
				if g, w := color.RGBAModel.Convert(got.At(x, y)), img.RGBAAt(b.Min.X+x, b.Min.Y+y); g != w {
					t.Fatalf("encodePNG(%s) decodes pixel (%d, %d) as %v, want %v", name, x, y, g, w)
				}
			}
		}
	}
}

// TestBands checks that a long diagonal stroke drawn band by band looks
// as it does drawn in one piece: a few levels apart at most, at edges
// (each band places the outline in float32 from its own corner, which
// rounds differently).
func TestBands(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		a, b point
		hw   float64
	}{
		{"steep", point{30.3, 20.7}, point{700.1, 1200.9}, 1.5},
		{"shallow", point{10, 40.25}, point{1500.5, 300.75}, 2},
		{"up", point{40, 900}, point{900, 30}, 0.75},
	} {
		r := image.Rect(int(math.Floor(min(tt.a.x, tt.b.x)-tt.hw)), int(math.Floor(min(tt.a.y, tt.b.y)-tt.hw)), int(math.Ceil(max(tt.a.x, tt.b.x)+tt.hw)), int(math.Ceil(max(tt.a.y, tt.b.y)+tt.hw)))
		// The canvas ends a margin past the stroke's box, not at a fixed
		// 1600x1300: pixels far from the box cost time and prove nothing.
		w, h := r.Max.X+bandRows, r.Max.Y+bandRows
		whole, banded := newCanvas(w, h), newCanvas(w, h)
		for _, c := range []*canvas{whole, banded} {
			c.polys = append(c.polys[:0], quad(tt.a, tt.b, tt.hw), disc(tt.b, tt.hw))
		}
		if banded.bands(r) == nil {
			t.Fatalf("%s: bands(%v) = nil, want the stroke cut in bands", tt.name, r)
		}
		whole.rasterize(r, image.NewUniform(color.RGBA{200, 60, 10, 255}), false)
		banded.fill("#c83c0a")
		ink, worst := 0, 0
		for i, v := range whole.img.Pix {
			worst = max(worst, abs(int(v)-int(banded.img.Pix[i])))
			if v != 0xff {
				ink++
			}
		}
		if worst > 3 || ink == 0 {
			t.Errorf("%s: drawn in bands, %d bytes have ink and they are up to %d levels from drawn whole, want some and at most 3", tt.name, ink, worst)
		}
		t.Logf("%s: up to %d levels apart", tt.name, worst)
	}
}

func abs(v int) int { return max(v, -v) }
