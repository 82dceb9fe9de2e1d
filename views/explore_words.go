package views

import (
	"fmt"
	"math/big"
	"slices"
	"strings"
	"time"

	"fencelab/lab"
	"fencelab/views/paths"
)

// segment is one part of a policy's bar: the orderings whose worst class
// is Class ("" for those that break nothing), as a share of the bar.
type segment struct {
	Class lab.Class
	N     *big.Int
	X, W  float64 // left edge and width, in percent of the bar
}

// segments splits a row's bar by worst class, most severe first, then the
// clean orderings. A part that is not zero is drawn at least half a percent
// wide, so that one ordering in a million still shows; the largest part
// gives up the room.
func (r *ExploreResult) segments(row ExploreRow) []segment {
	all := r.X.Orderings
	if all.Sign() == 0 {
		return nil
	}
	var segs []segment
	add := func(c lab.Class, n *big.Int) {
		if n.Sign() > 0 {
			f, _ := new(big.Rat).SetFrac(n, all).Float64()
			segs = append(segs, segment{Class: c, N: n, W: max(f*100, 0.5)})
		}
	}
	for _, c := range lab.Classes() {
		add(c, row.byClass(c))
	}
	add("", r.safeCount(row))
	total, largest := 0.0, 0
	for i, s := range segs {
		total += s.W
		if s.W > segs[largest].W {
			largest = i
		}
	}
	if len(segs) > 0 {
		segs[largest].W -= total - 100
	}
	x := 0.0
	for i := range segs {
		segs[i].X = x
		x += segs[i].W
	}
	return segs
}

// barLabel says in words what a bar shows.
func (r *ExploreResult) barLabel(row ExploreRow) string {
	parts := []string{string(row.Policy) + ": " + worstWords(row.worst(), row.byClass(row.worst()), r.X.Orderings, r.X.Complete)}
	for _, c := range row.others() {
		parts = append(parts, string(c)+" in "+countText(row.byClass(c)))
	}
	if row.worst() != "" {
		parts = append(parts, "clean in "+countText(r.safeCount(row)))
	}
	return strings.Join(parts, "; ")
}

// percent writes a share of a bar for an SVG length: "12.5%".
func percent(f float64) string { return svgNumber(f) + "%" }

// chipDetail is what an event names besides actor and kind: the request
// sent and its value, the value written, the request delivered, the
// resource restarted.
func chipDetail(e lab.Event) string {
	switch {
	case e.Kind == lab.Send && e.Value != nil:
		return e.ID + " " + *e.Value
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
func (p ExplorePage) backHref() string { return paths.FromPage(p.From) }

func (p ExplorePage) backText() string {
	if _, ok := paths.CutRunFrom(p.From); ok {
		return "saved run"
	}
	if p.From != "" {
		return p.From
	}
	return "your scenario"
}

// backLabel is the button back to where the exploration was reached from.
func (p ExplorePage) backLabel() string {
	if _, ok := paths.CutRunFrom(p.From); ok {
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
