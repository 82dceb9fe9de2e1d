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
	note := "A counterexample."
	for _, desc := range []string{"", "short", strings.Repeat("é", lab.MaxDescription)} {
		got := joinDescription(note, desc)
		if n := utf8.RuneCountInString(got); n > lab.MaxDescription || !strings.HasPrefix(got, note) {
			t.Errorf("joinDescription(note, %d runes) = %d runes, prefix %q", utf8.RuneCountInString(desc), n, got[:min(len(got), 20)])
		}
	}
}

// TestBars draws a sliver for one violating ordering among many, and
// never a full bar for fewer than all.
func TestBars(t *testing.T) {
	all := big.NewInt(1_000_000)
	r := &ExploreResult{X: &lab.Exploration{Orderings: all}}
	for _, tt := range []struct {
		bad           int64
		wantBad, good float64
	}{{0, 0, 1000}, {1, 5, 995}, {500_000, 500, 500}, {999_999, 995, 5}, {1_000_000, 1000, 0}} {
		bad, good := r.bars(ExploreRow{PolicyExploration: lab.PolicyExploration{AnyViolating: big.NewInt(tt.bad)}})
		if bad != tt.wantBad || good != tt.good {
			t.Errorf("bars(%d of %s) = %v, %v; want %v, %v", tt.bad, all, bad, good, tt.wantBad, tt.good)
		}
	}
}
