package diagram

import (
	"bytes"
	"image"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"fencelab/lab"
)

// TestDiagramPNG decodes each picture and checks its size, that it is not
// blank, and that it carries the colours of what it shows: a strip in the
// worst class's colour where an invariant broke, no red where nothing did.
func TestDiagramPNG(t *testing.T) {
	t.Parallel()
	cases := map[string]*lab.Scenario{
		"paused-worker": builtin(t, "paused-worker"),
		"generated-40":  generated(t, 40),
	}
	for name, s := range cases {
		tr := lab.Replay(s)
		for _, p := range []lab.Policy{lab.Unfenced, lab.Fenced} {
			for _, size := range []Size{Card, Full} {
				if size == Full && name != "paused-worker" {
					continue // a 6-megapixel picture; TestDiagramPNGLongRun draws big ones
				}
				if testing.Short() && p != lab.Unfenced && (size == Full || name != "paused-worker") {
					continue // paused-worker's cards show both policies; the rest is drawn once
				}
				call := "PNG(" + name + ", " + string(p) + ", " + sizeName(size) + ")"
				img := decodePNG(t, call, s, tr, p, size)
				b := img.Bounds()
				wantW, wantH := CardWidth, CardHeight
				if size == Full {
					d := layoutDiagram(s, tr, p, true, nil)
					wantW, wantH = 2*d.width, 2*d.height
				}
				if b.Dx() != wantW || b.Dy() != wantH {
					t.Errorf("%s is %dx%d, want %dx%d", call, b.Dx(), b.Dy(), wantW, wantH)
				}
				if f := inkShare(img); f < 0.02 || f > 0.6 {
					t.Errorf("%s: %.3f of its pixels are not white, want a drawing (0.02 to 0.6)", call, f)
				}
				violated := len(tr.Summary[p].Violations) > 0
				got := false // a mark or a word in the colour of a class broken, or red where none is
				for _, v := range append(tr.Summary[p].Violations, lab.Violation{}) {
					c := classColours(v.Class)
					got = got || hasColour(img, c.line) || hasColour(img, c.ink)
				}
				if got != violated {
					t.Errorf("%s shows the colour of a class broken = %v, want %v (violations: %v)", call, got, violated, tr.Summary[p].Violations)
				}
			}
		}
	}
}

// TestDiagramPNGLongRun draws a very long run smaller rather than huge.
func TestDiagramPNGLongRun(t *testing.T) {
	// Not parallel: it lowers maxFullArea for the others while it runs.
	defer func(area int) { maxFullArea = area }(maxFullArea)
	maxFullArea = 1 << 20
	if testing.Short() {
		maxFullArea = 1 << 18 // still far less than the run's size: drawn smaller all the same
	}
	s := generated(t, 400)
	img := decodePNG(t, "PNG(generated-400, full)", s, lab.Replay(s), lab.Fenced, Full)
	if px := img.Bounds().Dx() * img.Bounds().Dy(); px > maxFullArea+img.Bounds().Dx()+img.Bounds().Dy()+1 {
		t.Errorf("PNG(generated-400, full) has %d pixels, want at most about %d", px, maxFullArea)
	}
	if w := img.Bounds().Dx(); w >= 2*layoutDiagram(s, lab.Replay(s), lab.Fenced, true, nil).width {
		t.Errorf("PNG(generated-400, full) is %d wide, want it drawn smaller than twice its size", w)
	}
}

func decodePNG(t *testing.T, call string, s *lab.Scenario, tr *lab.Trace, p lab.Policy, size Size) *image.RGBA {
	t.Helper()
	var buf bytes.Buffer
	if err := PNG(&buf, s, tr, p, size); err != nil {
		t.Fatalf("%s: %v", call, err)
	}
	raw := buf.Bytes()
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("%s wrote no PNG: %v", call, err)
	}
	rgba, ok := img.(*image.RGBA)
	if !ok {
		t.Fatalf("%s decodes as %T, want the RGB of *image.RGBA", call, img)
	}
	if dir := os.Getenv("FENCELAB_ARTEFACTS"); dir != "" {
		name := strings.NewReplacer(" ", "-", ":", "").Replace(s.Title[:min(12, len(s.Title))])
		os.WriteFile(filepath.Join(dir, "png-"+name+"-"+string(p)+"-"+sizeName(size)+".png"), raw, 0o644)
	}
	return rgba
}

func sizeName(s Size) string {
	if s == Full {
		return "full"
	}
	return "card"
}

// inkShare is the share of pixels that are not white.
func inkShare(img *image.RGBA) float64 {
	n := 0
	for i := 0; i < len(img.Pix); i += 4 {
		if p := img.Pix[i : i+3]; p[0] < 0xf0 || p[1] < 0xf0 || p[2] < 0xf0 {
			n++
		}
	}
	return float64(n) / float64(len(img.Pix)/4)
}

// hasColour reports whether some pixel has exactly the colour "#rrggbb".
func hasColour(img *image.RGBA, hex string) bool {
	c := (&canvas{}).colourOrBlack(hex)
	for i := 0; i < len(img.Pix); i += 4 {
		if p := img.Pix[i : i+3]; p[0] == c.R && p[1] == c.G && p[2] == c.B {
			return true
		}
	}
	return false
}

// BenchmarkDiagramPNG lays out, draws and encodes a picture, as a first
// request for it does (later ones are served from the cache).
func BenchmarkDiagramPNG(b *testing.B) {
	for name, s := range map[string]*lab.Scenario{"paused-worker": builtin(b, "paused-worker"), "generated-40": generated(b, 40)} {
		tr := lab.Replay(s)
		for _, size := range []Size{Card, Full} {
			b.Run(name+"/"+sizeName(size), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if err := PNG(io.Discard, s, tr, lab.Unfenced, size); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// TestDiagramPNGConcurrent draws pictures at once, as a server does: the
// glyphs and buffers they share must not mix one picture into another.
func TestDiagramPNGConcurrent(t *testing.T) {
	t.Parallel()
	s := builtin(t, "paused-worker")
	tr := lab.Replay(s)
	want := map[lab.Policy][]byte{}
	for _, p := range []lab.Policy{lab.Unfenced, lab.Fenced} {
		var buf bytes.Buffer
		if err := PNG(&buf, s, tr, p, Card); err != nil {
			t.Fatal(err)
		}
		want[p] = buf.Bytes()
	}
	var wg sync.WaitGroup
	for i := range 6 {
		p := []lab.Policy{lab.Unfenced, lab.Fenced}[i%2]
		wg.Go(func() {
			var buf bytes.Buffer
			if err := PNG(&buf, s, tr, p, Card); err != nil {
				t.Error(err)
			} else if !bytes.Equal(buf.Bytes(), want[p]) {
				t.Errorf("PNG(paused-worker, %s, card) drawn with others differs from drawn alone", p)
			}
		})
	}
	wg.Wait()
}

// BenchmarkEncodePNG encodes an already drawn picture, the full-size
// paused-worker diagram, with the hand-written encoder and with
// image/png at its default and fastest levels: the figure beside
// encodePNG comes from here. bytes/picture is the file's size.
func BenchmarkEncodePNG(b *testing.B) {
	s := builtin(b, "paused-worker")
	img, err := Image(s, lab.Replay(s), lab.Unfenced, Full)
	if err != nil {
		b.Fatal(err)
	}
	encoders := []struct {
		name   string
		encode func(io.Writer, *image.RGBA) error
	}{
		{"hand-written", encodePNG},
		{"image-png", func(w io.Writer, m *image.RGBA) error { return png.Encode(w, m) }},
		{"image-png-fastest", func(w io.Writer, m *image.RGBA) error {
			return (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(w, m)
		}},
	}
	for _, e := range encoders {
		b.Run(e.name, func(b *testing.B) {
			var buf bytes.Buffer
			b.ReportAllocs()
			for b.Loop() {
				buf.Reset()
				if err := e.encode(&buf, img); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(buf.Len()), "bytes/picture")
		})
	}
}
