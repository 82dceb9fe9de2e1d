package wrap

import (
	"strings"
	"testing"
)

// TestWidth checks advances against widths Chromium measured for the same
// text with kerning off, which it rounds up to a 64th of a pixel.
func TestWidth(t *testing.T) {
	tests := []struct {
		face Face
		size float64
		text string
		want float64 // Chromium 156, a nowrap span's getBoundingClientRect().width
	}{
		{Sans, 15.52, "A holds job with token 41, accepted: nothing checks the token", 485.515625},
		{MonoBold, 13.968, "mail: the result is new-result", 252.015625},
		{Sans, 15.52, "A holds job with token 41, accepted: nothing checks the token AVAWAY To", 581.625},
	}
	for _, tt := range tests {
		if got := Width(tt.face, tt.size, tt.text); got > tt.want || got <= tt.want-1./64 {
			t.Errorf("Width(%d, %v, %q) = %v, want %v rounded up to a 64th", tt.face, tt.size, tt.text, got, tt.want)
		}
	}
}

// TestLines checks where lines break: at spaces, after a hyphen where
// Chromium breaks there, inside a word only when it is marked Anywhere,
// never inside a NoWrap run.
func TestLines(t *testing.T) {
	mono := func(s string) Run { return Run{Text: s, Face: Mono, Size: 10} } // every character 6.02 px
	anywhere := func(s string) Run { r := mono(s); r.Anywhere = true; return r }
	tests := []struct {
		name  string
		width float64
		runs  []Run
		want  int
	}{
		{"fits", 61, []Run{mono("aaaa bbbbb")}, 1},
		{"the space hangs", 31, []Run{mono("aaaaa ")}, 1},
		{"breaks at the space", 60, []Run{mono("aaaa bbbbb")}, 2},
		{"each word alone", 31, []Run{mono("aaaa bbbb cccc")}, 3},
		{"a long word overflows", 20, []Run{mono("aaaaaaaaaa")}, 1},
		{"after a hyphen", 40, []Run{mono("new-result")}, 2},
		{"before a digit after a letter", 40, []Run{mono("token-42x")}, 2},
		{"before a digit after a digit", 20, []Run{mono("rows 1-900")}, 3},
		{"not before a digit after a sign", 30, []Run{mono("(-4200")}, 1},
		{"not before a digit after a non-ASCII letter", 30, []Run{mono("é-4200")}, 1},
		{"anywhere: the word moves down first", 40, []Run{anywhere("aa bbbbbb")}, 2},
		{"anywhere: then breaks", 25, []Run{anywhere("aaaaaaaaaa")}, 3},
		{"no wrap inside", 40, []Run{mono("aa "), {Text: "token 42", Face: Mono, Size: 10, NoWrap: true}}, 2},
		{"padding counts", 60, []Run{mono("aaaa"), {Text: "bbbb", Face: Mono, Size: 10, Pad: 5}}, 1},
		{"padding overflows", 57, []Run{mono("aaaa "), {Text: "bbbb", Face: Mono, Size: 10, Pad: 5}}, 2},
		{"without letter-spacing", 60, []Run{mono("aaaa aaaa")}, 1},
		{"letter-spacing counts", 60, []Run{{Text: "aaaa aaaa", Face: Mono, Size: 10, Spacing: 1}}, 2},
		{"between ideographs, each an em", 25, []Run{mono("日本語のテキスト")}, 4},
		{"three words a line", 100, []Run{mono(strings.Repeat("word ", 30))}, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Lines(tt.width, tt.runs...); got != tt.want {
				t.Errorf("Lines(%v, %+v) = %d, want %d", tt.width, tt.runs, got, tt.want)
			}
		})
	}
}
