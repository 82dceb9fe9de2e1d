package views_test

import (
	"context"
	"encoding/json"
	"math/big"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/net/html"

	"fencelab/lab"
	"fencelab/views"
	"fencelab/views/htmltest"
)

// exploreResult explores every ordering of sc and prepares it for the page.
func exploreResult(t *testing.T, sc *lab.Scenario) *views.ExploreResult {
	t.Helper()
	x := lab.Explore(context.Background(), sc, lab.ExploreOptions{})
	reordered, err := x.Counterexamples(sc)
	if err != nil {
		t.Fatalf("Counterexamples(%s): %v", sc.Title, err)
	}
	r, err := views.NewExploreResult(sc, x, lab.DefaultBudget, 2*time.Second, reordered)
	if err != nil {
		t.Fatalf("NewExploreResult(%s): %v", sc.Title, err)
	}
	return r
}

// lineOf is a result of one default policy, clean or breaking c in n of
// all orderings, and what ExploreLine says of it.
func lineOf(c lab.Class, n, all *big.Int, complete bool) string {
	pe := lab.PolicyExploration{Policy: lab.DefaultPolicies()[0], AnyViolating: new(big.Int), ByClass: map[lab.Class]*big.Int{}}
	if c != "" {
		pe.Worst, pe.AnyViolating, pe.ByClass[c] = &c, n, n
	}
	r := &views.ExploreResult{X: &lab.Exploration{Orderings: all, Complete: complete}, Rows: []views.ExploreRow{{PolicyExploration: pe}}}
	line, _ := strings.CutPrefix(views.ExploreLine(r), string(pe.Policy)+": ")
	return line
}

// TestCountText: counts of orderings are written for people, with
// thousands separated and past nine digits in powers of ten.
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
		if got, want := lineOf("", nil, n, true), "clean in all "+tt.want; got != want {
			t.Errorf("ExploreLine(clean in all %s) = %q, want %q", tt.n, got, want)
		}
	}
}

// TestDurationText: a bound of time is written as "2 s" or "500 ms",
// where the page says why an exploration stopped.
func TestDurationText(t *testing.T) {
	t.Parallel()
	sc, _ := builtin(t, "paused-worker")
	r := exploreResult(t, sc)
	r.X.Complete, r.X.Stopped = false, lab.StopDeadline
	tests := map[time.Duration]string{2 * time.Second: "2\u00a0s", 1500 * time.Millisecond: "1.5\u00a0s",
		500 * time.Millisecond: "500\u00a0ms", 10 * time.Second: "10\u00a0s"}
	for d, want := range tests {
		r.Deadline = d
		page := rawText(render(t, "ExploreResultSection(stopped at the deadline)", views.ExploreResultSection(r)))
		if sentence := "The deadline of " + want + " passed."; !strings.Contains(page, sentence) {
			t.Errorf("ExploreResultSection(stopped at a deadline of %v) does not say %q", d, sentence)
		}
	}
}

// TestJoinDescription keeps a saved counterexample within the limit of a
// description, the note first, whatever the scenario's own description.
func TestJoinDescription(t *testing.T) {
	t.Parallel()
	base, _ := builtin(t, "paused-worker")
	const note = "A counterexample found by exploring every ordering of"
	for _, desc := range []string{"", "short", strings.Repeat("é", lab.MaxDescription)} {
		sc := *base
		sc.Description = desc
		r := exploreResult(t, &sc)
		if len(r.Orderings) == 0 {
			t.Fatalf("exploring paused-worker found no counterexample")
		}
		for _, o := range r.Orderings {
			var saved lab.Scenario
			if err := json.Unmarshal([]byte(o.Source), &saved); err != nil {
				t.Fatalf("ordering %s: %v", o.Label, err)
			}
			got := saved.Description
			if n := utf8.RuneCountInString(got); n > lab.MaxDescription || !strings.HasPrefix(got, note) {
				t.Errorf("ordering %s of a description of %d runes: description of %d runes, prefix %q", o.Label, utf8.RuneCountInString(desc), n, got[:min(len(got), 60)])
			}
			if desc == "short" && !strings.HasSuffix(got, "\n\nThe original's lesson, before this reordering: short") {
				t.Errorf("ordering %s of a short description: %q, want the note then the description, labelled as the original's", o.Label, got)
			}
			if !strings.HasPrefix(saved.Title, "Reordered: ") {
				t.Errorf("ordering %s: title %q, want it to say the events were reordered", o.Label, saved.Title)
			}
		}
	}
}

// segment is one part of a policy's bar as the chart draws it: the class
// of its pattern ("" for the clean part), its left edge and width in
// percent.
type segment struct {
	Class lab.Class
	X, W  float64
}

// barSegments reads the parts of policy p's bar from the rendered chart.
func barSegments(t *testing.T, root *html.Node, p lab.Policy) []segment {
	t.Helper()
	bar := htmltest.Find(root, func(n *html.Node) bool {
		return n.Data == "svg" && htmltest.HasClass(n, "x-bar") && strings.HasPrefix(htmltest.Attr(n, "aria-label"), string(p)+":")
	})
	if bar == nil {
		t.Fatalf("no bar for %s", p)
	}
	pct := func(n *html.Node, key string) float64 {
		f, err := strconv.ParseFloat(strings.TrimSuffix(htmltest.Attr(n, key), "%"), 64)
		if err != nil {
			t.Fatalf("bar of %s: rect %s=%q: %v", p, key, htmltest.Attr(n, key), err)
		}
		return f
	}
	var segs []segment
	for n := bar.FirstChild; n != nil; n = n.NextSibling {
		if n.Type != html.ElementNode || n.Data != "rect" {
			continue
		}
		if slug, ok := strings.CutPrefix(htmltest.Attr(n, "fill"), "url(#x-pat-"+string(p)+"-"); ok && len(segs) > 0 {
			segs[len(segs)-1].Class = lab.Class(strings.TrimSuffix(slug, ")"))
			continue
		}
		segs = append(segs, segment{X: pct(n, "x"), W: pct(n, "width")})
	}
	return segs
}

// TestSegments draws a sliver for one ordering among many, never a full
// bar for fewer than all, splits by worst class in order of severity, and
// always fills the bar exactly.
func TestSegments(t *testing.T) {
	t.Parallel()
	sc, _ := builtin(t, "paused-worker")
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
		r := exploreResult(t, sc)
		r.X.Orderings = big.NewInt(1_000_000)
		row := &r.Rows[0]
		row.AnyViolating, row.ByClass = new(big.Int), map[lab.Class]*big.Int{}
		for c, n := range tt.byClass {
			row.ByClass[c] = big.NewInt(n)
			row.AnyViolating.Add(row.AnyViolating, big.NewInt(n))
		}
		got := barSegments(t, render(t, "ExploreResultSection", views.ExploreResultSection(r)), row.Policy)
		if len(got) != len(tt.want) {
			t.Fatalf("bar of %s = %d parts, want %d: %+v", tt.name, len(got), len(tt.want), got)
		}
		x := 0.0
		for i, s := range got {
			if s.Class != tt.want[i].Class || s.W != tt.want[i].W || s.X != x {
				t.Errorf("bar of %s, part %d = %s at %v, %v wide; want %s at %v, %v wide", tt.name, i, s.Class, s.X, s.W, tt.want[i].Class, x, tt.want[i].W)
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
		if got := lineOf(tt.c, big.NewInt(tt.n), all, true); got != tt.want {
			t.Errorf("ExploreLine(%q in %d of 720) = %q, want %q", tt.c, tt.n, got, tt.want)
		}
	}
}
