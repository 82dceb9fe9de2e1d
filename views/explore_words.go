package views

import (
	"fmt"
	"math/big"
	"slices"
	"strings"
	"time"

	"fencelab/lab"
)

// bars are the widths, out of exploreBarWidth, of the violating and the safe
// orderings of a row. A part that is not zero is drawn at least a little
// wide, so that one ordering in a million still shows.
func (r *ExploreResult) bars(row ExploreRow) (bad, good float64) {
	all := r.X.Orderings
	if all.Sign() == 0 {
		return 0, 0
	}
	f, _ := new(big.Rat).SetFrac(row.AnyViolating, all).Float64()
	bad = f * exploreBarWidth
	if row.AnyViolating.Sign() > 0 {
		bad = max(bad, exploreBarWidth/200)
	}
	if row.AnyViolating.Cmp(all) < 0 {
		bad = min(bad, exploreBarWidth-exploreBarWidth/200)
	}
	return bad, exploreBarWidth - bad
}

const exploreBarWidth = 1000.0

// The bar colours differ in lightness too, so they read apart without
// colour vision and in grey print.
const (
	colourBad  = "#b3261e"
	colourGood = "#8bcf9f"
	colourNone = "#d9dce2"
)

// barLabel says in words what a bar shows.
func (r *ExploreResult) barLabel(row ExploreRow) string {
	return fmt.Sprintf("%s: %s of %s break an invariant, %s break none", row.Policy,
		countText(row.AnyViolating), orderingsText(r.X.Orderings), countText(r.safeCount(row)))
}

// chipDetail is what an event names besides actor and kind: the value
// written, the request sent or delivered, the resource restarted.
func chipDetail(e lab.Event) string {
	switch {
	case e.Value != nil:
		return *e.Value
	case e.Kind == lab.Send:
		return e.ID
	case e.Request != "":
		return e.Request
	case e.Kind == lab.Restart:
		return e.Resource
	}
	return ""
}

func svgNumber(f float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", f), "0"), ".")
}

// safeCount is how many of the orderings counted break nothing.
func (r *ExploreResult) safeCount(row ExploreRow) *big.Int {
	return new(big.Int).Sub(r.X.Orderings, row.AnyViolating)
}

// stopText says why an incomplete exploration stopped.
func (r *ExploreResult) stopText() string {
	switch r.X.Stopped {
	case lab.StopBudget:
		return "The budget of " + countIntText(r.Budget) + " distinct states was reached."
	case lab.StopDeadline:
		return "The deadline of " + durationText(r.Deadline) + " passed."
	}
	return "The exploration was cancelled."
}

// countText writes a count of orderings for people: 1,234,567; past nine
// digits, which nobody reads at a glance, 1.17 × 10¹⁴⁹ (truncated, so that
// a count below the total never reads as the total rounded up).
func countText(n *big.Int) string {
	s := n.String()
	if abbreviated(n) {
		exp := len(s) - 1
		return s[:1] + "." + s[1:3] + " × 10" + superscript(exp)
	}
	return groupDigits(s)
}

// abbreviated reports whether countText writes n in powers of ten.
func abbreviated(n *big.Int) bool { return len(n.String()) > 9 }

func countIntText(n int) string { return groupDigits(itoa(n)) }

func groupDigits(s string) string {
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func superscript(n int) string {
	const digits = "⁰¹²³⁴⁵⁶⁷⁸⁹"
	var b strings.Builder
	for _, d := range itoa(n) {
		b.WriteString(string([]rune(digits)[d-'0']))
	}
	return b.String()
}

// orderingsText writes "1 ordering" or "21 orderings".
func orderingsText(n *big.Int) string {
	if n.IsInt64() && n.Int64() == 1 {
		return "1 ordering"
	}
	return countText(n) + " orderings"
}

// durationText writes a bound of time as "2 s" or "500 ms", with a
// no-break space so that the unit never wraps alone.
func durationText(d time.Duration) string {
	if d < time.Second {
		return itoa(int(d.Milliseconds())) + "\u00a0ms"
	}
	return strings.TrimSuffix(fmt.Sprintf("%.1f", d.Seconds()), ".0") + "\u00a0s"
}

// orderText writes an order as its event indices: "1 2 3 5 6 4 7".
func orderText(order []int) string {
	parts := make([]string, len(order))
	for i, n := range order {
		parts[i] = itoa(n)
	}
	return strings.Join(parts, " ")
}

// deadlineChoices are the deadlines the form offers, up to the largest
// allowed; the current one is added when it is not among them.
func deadlineChoices(current, largest time.Duration) []time.Duration {
	var ds []time.Duration
	for _, d := range []time.Duration{time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second} {
		if d <= largest {
			ds = append(ds, d)
		}
	}
	if !slices.Contains(ds, current) {
		ds = append(ds, current)
		slices.Sort(ds)
	}
	return ds
}

// backHref is the page the exploration was reached from; empty for a
// posted scenario, which has none.
func (p ExplorePage) backHref() string {
	if id, ok := strings.CutPrefix(p.From, "r/"); ok {
		return "/r/" + id
	}
	if p.From != "" {
		return "/scenarios/" + p.From
	}
	return ""
}

func (p ExplorePage) backText() string {
	switch {
	case strings.HasPrefix(p.From, "r/"):
		return "saved run"
	case p.From != "":
		return p.From
	}
	return "your scenario"
}

// backLabel is the button back to where the exploration was reached from.
func (p ExplorePage) backLabel() string {
	if strings.HasPrefix(p.From, "r/") {
		return "Back to the run"
	}
	return "Back to the scenario"
}

// formMethod keeps a scenario with a link in the URL; a posted one is
// posted again.
func (p ExplorePage) formMethod() string {
	if p.From != "" {
		return "get"
	}
	return "post"
}

// furtherBounds are what the form offers next: the bounds asked for, or,
// when the exploration stopped at them, the largest ones.
func (p ExplorePage) furtherBounds() (int, time.Duration) {
	if p.Result.X.Complete {
		return p.Budget, p.Deadline
	}
	return p.MaxBudget, p.MaxDeadline
}
