package views

import (
	"math/big"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"fencelab/lab"
)

func TestCountText(t *testing.T) {
	t.Parallel()
	tests := []struct{ n, want string }{
		{"0", "0"},
		{"21", "21"},
		{"1234", "1,234"},
		{"999999999", "999,999,999"},
		{"1000000000", "1.00 × 10⁹"},
		{"1935271454725", "1.93 × 10¹²"},
		{"1" + strings.Repeat("7", 149), "1.77 × 10¹⁴⁹"},
	}
	for _, tt := range tests {
		n, _ := new(big.Int).SetString(tt.n, 10)
		if got := countText(n); got != tt.want {
			t.Errorf("countText(%s) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestDurationText(t *testing.T) {
	t.Parallel()
	tests := map[time.Duration]string{2 * time.Second: "2\u00a0s", 1500 * time.Millisecond: "1.5\u00a0s",
		500 * time.Millisecond: "500\u00a0ms", 10 * time.Second: "10\u00a0s"}
	for d, want := range tests {
		if got := durationText(d); got != want {
			t.Errorf("durationText(%v) = %q, want %q", d, got, want)
		}
	}
}

// TestJoinDescription keeps a saved counterexample within the limit of a
// description, the note first.
func TestJoinDescription(t *testing.T) {
	t.Parallel()
	note := "A counterexample."
	for _, desc := range []string{"", "short", strings.Repeat("é", lab.MaxDescription)} {
		got := joinDescription(note, desc)
		if n := utf8.RuneCountInString(got); n > lab.MaxDescription || !strings.HasPrefix(got, note) {
			t.Errorf("joinDescription(note, %d runes) = %d runes, prefix %q", utf8.RuneCountInString(desc), n, got[:min(len(got), 20)])
		}
	}
}

// TestSegments draws a sliver for one ordering among many, never a full
// bar for fewer than all, splits by worst class in order of severity, and
// always fills the bar exactly.
func TestSegments(t *testing.T) {
	t.Parallel()
	all := big.NewInt(1_000_000)
	r := &ExploreResult{X: &lab.Exploration{Orderings: all}}
	row := func(byClass map[lab.Class]int64) ExploreRow {
		pe := lab.PolicyExploration{AnyViolating: new(big.Int), ByClass: map[lab.Class]*big.Int{}}
		for c, n := range byClass {
			pe.ByClass[c] = big.NewInt(n)
			pe.AnyViolating.Add(pe.AnyViolating, big.NewInt(n))
		}
		return ExploreRow{PolicyExploration: pe}
	}
	for _, tt := range []struct {
		name    string
		byClass map[lab.Class]int64
		want    []segment // classes and widths
	}{
		{"clean", nil, []segment{{Class: "", W: 100}}},
		{"one in a million", map[lab.Class]int64{lab.Corrupting: 1}, []segment{{Class: lab.Corrupting, W: .5}, {Class: "", W: 99.5}}},
		{"all but one", map[lab.Class]int64{lab.Deposed: 999_999}, []segment{{Class: lab.Deposed, W: 99.5}, {Class: "", W: .5}}},
		{"all", map[lab.Class]int64{lab.Overrun: 1_000_000}, []segment{{Class: lab.Overrun, W: 100}}},
		{"by severity", map[lab.Class]int64{lab.Overrun: 250_000, lab.Corrupting: 250_000, lab.Deposed: 500_000},
			[]segment{{Class: lab.Corrupting, W: 25}, {Class: lab.Deposed, W: 50}, {Class: lab.Overrun, W: 25}}},
	} {
		got := r.segments(row(tt.byClass))
		if len(got) != len(tt.want) {
			t.Fatalf("segments(%s) = %d parts, want %d: %+v", tt.name, len(got), len(tt.want), got)
		}
		x := 0.0
		for i, s := range got {
			if s.Class != tt.want[i].Class || s.W != tt.want[i].W || s.X != x {
				t.Errorf("segments(%s)[%d] = %s at %v, %v wide; want %s at %v, %v wide", tt.name, i, s.Class, s.X, s.W, tt.want[i].Class, x, tt.want[i].W)
			}
			x += s.W
		}
	}
}

// TestWorstWords says each policy's worst class in words a class can read.
func TestWorstWords(t *testing.T) {
	t.Parallel()
	all := big.NewInt(720)
	for _, tt := range []struct {
		c    lab.Class
		n    int64
		want string
	}{
		{lab.Corrupting, 1, "corrupts data in 1 of 720 orderings"},
		{lab.Refusing, 35, "turns the rightful holder away in 35 of 720 orderings"},
		{lab.Deposed, 50, "lets a deposed worker's write in, in 50 of 720 orderings"},
		{lab.Overrun, 300, "lease overrun only, in 300 of 720 orderings"},
		{"", 0, "clean in all 720"},
	} {
		if got := worstWords(tt.c, big.NewInt(tt.n), all, true); got != tt.want {
			t.Errorf("worstWords(%q, %d, 720) = %q, want %q", tt.c, tt.n, got, tt.want)
		}
	}
}
