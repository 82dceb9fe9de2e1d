// Package wrap counts the lines a text takes in a box of a given width,
// breaking where Chromium breaks, with the advance widths of the DejaVu
// fonts it uses on Linux: the widest of the common sans and monospace
// faces, so that other fonts take as many lines or fewer.
package wrap

import (
	"math"
	"unicode"
	"unicode/utf8"
)

// Face is a font face of the pages: family, weight and style.
type Face int

// The faces of the pages' text. The sans faces stand for the pages'
// system-ui, the mono faces for their ui-monospace.
const (
	Sans Face = iota
	SansBold
	SansOblique
	Mono
	MonoBold
	faceCount
)

// extraRunes are the non-ASCII runes the pages write themselves: glyphs of
// decisions, classes and markers. Other runes count as a whole em.
const extraRunes = "✓✕⊘≡…→•↷⚠≠⌛▸·—–’“”‘×✖▲△▼◆●■"

// tableRunes lists the runes of the advances table, in its order.
func tableRunes() []rune {
	var rs []rune
	for r := rune(' '); r <= '~'; r++ {
		rs = append(rs, r)
	}
	return append(rs, []rune(extraRunes)...)
}

// index is each rune's place in the advances table.
var index = func() map[rune]int {
	m := map[rune]int{}
	for i, r := range tableRunes() {
		m[r] = i
	}
	return m
}()

// Advance is the advance of r in face f, in em.
func Advance(f Face, r rune) float64 {
	if i, ok := index[r]; ok {
		return float64(advances[f][i]) / 2048
	}
	return 1
}

// Width is the width in pixels of s in face f at size pixels.
func Width(f Face, size float64, s string) float64 {
	w := 0.0
	for _, r := range s {
		w += Advance(f, r)
	}
	return w * textSize(size)
}

// textSize is the font size Chromium shapes text at: size rounded down to
// a 64th of a pixel (15.52 becomes 15.515625). Widths measured in
// Chromium are these sums, rounded up to a 64th.
func textSize(size float64) float64 { return math.Floor(size*64) / 64 }

// Run is a piece of inline text in one face: a span of the page.
type Run struct {
	Text string
	Face Face
	Size float64 // font size in pixels
	// Spacing is the letter-spacing in pixels, added after each character.
	Spacing float64
	// Pad is the run's horizontal padding, border and margin, on each side.
	Pad float64
	// Anywhere marks overflow-wrap: anywhere, a word longer than the box
	// is broken between any two characters.
	Anywhere bool
	// NoWrap marks white-space: nowrap, or an inline-block kept whole: no
	// break inside the run.
	NoWrap bool
}

// glyph is a character laid out: its width and where a line may break.
type glyph struct {
	w          float64
	space      bool // hangs at the end of a line
	breakAfter bool
	anywhere   bool
}

// Lines is how many lines runs take in a box width pixels wide: breaking
// at spaces, after hyphens and around ideographs, and inside a word only
// where it is marked Anywhere and alone longer than the line, as Chromium
// does.
func Lines(width float64, runs ...Run) int {
	gs := layout(runs)
	lines, x, last, xLast := 1, 0.0, -1, 0.0
	for i := 0; i < len(gs); i++ {
		g := gs[i]
		if g.space {
			x += g.w
			last, xLast = i, x
			continue
		}
		if x+g.w > width && x > 0 {
			switch {
			case last >= 0:
				lines, x, last = lines+1, x-xLast, -1
				if x+g.w <= width || x == 0 {
					break
				}
				fallthrough
			case g.anywhere:
				if x > 0 {
					lines, x = lines+1, 0
				}
			}
		}
		x += g.w
		if g.breakAfter {
			last, xLast = i, x
		}
	}
	return lines
}

// layout turns runs into glyphs with their break opportunities.
func layout(runs []Run) []glyph {
	var gs []glyph
	for _, r := range runs {
		start := len(gs)
		prev := rune(0)
		for i, c := range r.Text {
			g := glyph{w: Advance(r.Face, c)*textSize(r.Size) + r.Spacing, anywhere: r.Anywhere}
			if !r.NoWrap {
				g.space = c == ' '
				next, _ := utf8.DecodeRuneInString(r.Text[i+utf8.RuneLen(c):])
				g.breakAfter = c == '-' && next != utf8.RuneError && hyphenBreaks(prev, next) ||
					ideographic(c) || ideographic(next)
			}
			if r.NoWrap {
				g.anywhere = false
			}
			gs = append(gs, g)
			prev = c
		}
		if len(gs) > start {
			gs[start].w += r.Pad
			gs[len(gs)-1].w += r.Pad
		} else if r.Pad > 0 {
			gs = append(gs, glyph{w: 2 * r.Pad})
		}
	}
	return gs
}

// hyphenBreaks reports whether a line may break after a hyphen between
// prev and next, as Chromium breaks: before a digit only after an ASCII
// letter or digit ("w1-0001", "rows 1-900", not "(-12" or "é-12", where
// the hyphen may be a minus sign), otherwise after a letter or a digit.
func hyphenBreaks(prev, next rune) bool {
	if isDigit(next) {
		return isDigit(prev) || prev < 128 && isLetter(prev)
	}
	return isLetter(prev) || isDigit(prev)
}

func isLetter(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 127 }

func isDigit(r rune) bool { return r >= '0' && r <= '9' }

// ideographic reports whether a line may break before and after r, as
// between the characters of Chinese or Japanese text.
func ideographic(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}
