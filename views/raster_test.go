package views

import (
	"bytes"
	"compress/flate"
	"hash/adler32"
	"image"
	"image/color"
	"io"
	"math"
	"math/rand/v2"
	"testing"

	"golang.org/x/image/math/fixed"
)

// TestAdler checks the PNG writer's checksum against hash/adler32 on
// runs of zeros (which it skips eight at a time) mixed with other bytes,
// across the lengths at which it reduces its sums.
func TestAdler(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 7, 8, 9, 5551, 5552, 5553, 20000, 100003} {
		for _, zeroShare := range []float64{0, 0.9, 1} {
			p := make([]byte, n)
			for i := range p {
				if r.Float64() >= zeroShare {
					p[i] = byte(r.UintN(256))
				}
			}
			var a adler
			a.s1 = 1
			a.write(p[:n/2])
			a.zeros(n / 3)
			a.write(p[n/2:])
			want := adler32.Checksum(append(append(append([]byte{}, p[:n/2]...), make([]byte, n/3)...), p[n/2:]...))
			if got := a.s2<<16 | a.s1; got != want {
				t.Errorf("adler of %d bytes (%.1f zeros) = %#x, want %#x", n+n/3, zeroShare, got, want)
			}
		}
	}
}

// TestGlyphCache checks that a glyph from the cache is the mask the face
// draws at any whole-pixel position with the same fraction.
func TestGlyphCache(t *testing.T) {
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

// TestRunDeflater round-trips rows through the deflater and
// compress/flate's reader: runs at distance one and three of every length
// around the limits of a match, noise, rows long enough for many blocks.
func TestRunDeflater(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	noise := func(n int) []byte {
		p := make([]byte, n)
		for i := range p {
			p[i] = byte(r.UintN(256))
		}
		return p
	}
	runs := func(n int) []byte {
		var p []byte
		for len(p) < n {
			switch r.UintN(3) {
			case 0:
				p = append(p, bytes.Repeat([]byte{byte(r.UintN(3))}, int(r.UintN(600)))...)
			case 1:
				p = append(p, bytes.Repeat([]byte{byte(r.UintN(256)), 7, 200}, int(r.UintN(200)))...)
			default:
				p = append(p, noise(int(r.UintN(10)))...)
			}
		}
		return p[:n]
	}
	cases := map[string][][]byte{
		"empty":       nil,
		"one byte":    {{2}},
		"zeros":       {make([]byte, 5653), make([]byte, 5653)},
		"every run":   {},
		"noise":       {noise(100000)},
		"runs":        {runs(70000), runs(3), runs(200000)},
		"many blocks": {runs(1 << 20), noise(1 << 16), runs(1 << 20)},
	}
	for n := 1; n <= 2*maxMatch+2; n++ {
		cases["every run"] = append(cases["every run"], append([]byte{9}, make([]byte, n)...), bytes.Repeat([]byte{1, 2, 3}, n))
	}
	for n := range 2*maxMatch + 4 {
		cases["zero rows"] = append(cases["zero rows"], append([]byte{2}, make([]byte, n)...), runs(n))
	}
	for name, rows := range cases {
		var buf bytes.Buffer
		var z runDeflater
		z.reset(&buf)
		for _, row := range rows {
			if name == "zero rows" && len(row) > 0 && row[0] == 2 && bytes.Count(row, []byte{0}) == len(row)-1 {
				z.zeroRow(row[0], len(row)-1)
			} else {
				z.row(row)
			}
		}
		if err := z.close(); err != nil {
			t.Fatalf("%s: close: %v", name, err)
		}
		got, err := io.ReadAll(flate.NewReader(&buf))
		if want := bytes.Join(rows, nil); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: inflated %d bytes (err %v), want the %d written back", name, len(got), err, len(want))
		}
	}
}

// TestCodeLengths checks that a code is complete and within its limit
// when the plain Huffman code would be far deeper (Fibonacci counts).
func TestCodeLengths(t *testing.T) {
	for _, limit := range []uint8{7, 15} {
		freq := make([]int32, 30)
		a, b := int32(1), int32(1)
		for i := range freq {
			freq[i], a, b = a, b, min(a+b, 1<<30)
		}
		lens := make([]uint8, len(freq))
		codeLengths(freq, limit, lens)
		kraft := 0.0
		for s, l := range lens {
			if l == 0 || l > limit {
				t.Fatalf("codeLengths(limit %d) gives symbol %d length %d", limit, s, l)
			}
			kraft += 1 / float64(uint(1)<<l)
		}
		if kraft != 1 {
			t.Errorf("codeLengths(limit %d): Kraft sum %v, want 1 (a complete code)", limit, kraft)
		}
	}
}

// TestBands checks that a long diagonal stroke drawn band by band looks
// as it does drawn in one piece: a few levels apart at most, at edges
// (each band places the outline in float32 from its own corner, which
// rounds differently).
func TestBands(t *testing.T) {
	for _, tt := range []struct {
		name string
		a, b point
		hw   float64
	}{
		{"steep", point{30.3, 20.7}, point{700.1, 1200.9}, 1.5},
		{"shallow", point{10, 40.25}, point{1500.5, 300.75}, 2},
		{"up", point{40, 900}, point{900, 30}, 0.75},
	} {
		whole, banded := newCanvas(1600, 1300), newCanvas(1600, 1300)
		for _, c := range []*canvas{whole, banded} {
			c.polys = append(c.polys[:0], quad(tt.a, tt.b, tt.hw), disc(tt.b, tt.hw))
		}
		r := image.Rect(int(math.Floor(min(tt.a.x, tt.b.x)-tt.hw)), int(math.Floor(min(tt.a.y, tt.b.y)-tt.hw)), int(math.Ceil(max(tt.a.x, tt.b.x)+tt.hw)), int(math.Ceil(max(tt.a.y, tt.b.y)+tt.hw)))
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
