package views

import (
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"fencelab/lab"
	"fencelab/views/export"
)

// ExplorePage is the exploration of every ordering of one scenario.
type ExplorePage struct {
	Result   *ExploreResult
	From     string // "paused-worker" or "r/{id}"; empty for a posted scenario
	Source   string // the posted scenario's JSON, which the page's forms post again
	Budget   int    // the bounds asked for, offered again in the form
	Deadline time.Duration
	// MaxBudget and MaxDeadline are the largest bounds the server allows,
	// offered when the exploration stopped at the bounds asked for.
	MaxBudget   int
	MaxDeadline time.Duration
	Share       *Share // link preview tags
}

// ExploreResult is what an exploration found, as the page shows it and as
// the streamed "result" event carries it.
type ExploreResult struct {
	Scenario  *lab.Scenario
	X         *lab.Exploration
	Budget    int           // the bounds it ran with
	Deadline  time.Duration //
	Rows      []ExploreRow  // one per policy, in the order of lab.Policies
	Orderings []*Ordering   // the distinct counterexamples, in the order of Rows
	actors    map[string]int
}

// ExploreRow is one policy's line of the table and bar of the chart.
type ExploreRow struct {
	lab.PolicyExploration
	Ordering *Ordering // the ordering of its counterexample, or nil
}

// Ordering is a counterexample shared by the policies it breaks first.
type Ordering struct {
	Label  string      // A, B, ... in the order of the policies
	Order  []int       // 1-based indices of the scenario's events
	Events []lab.Event // the events in this order
	Firsts []FirstViolation
	Source string // the reordered scenario's JSON, for "Save as a run"
}

// FirstViolation is where a policy first reaches its worst class in an
// ordering, and the invariant it breaks there.
type FirstViolation struct {
	Policy    lab.Policy
	Step      int
	Invariant lab.Invariant
	Class     lab.Class
}

// NewExploreResult prepares x, the exploration of s within budget and
// deadline, for the page: it groups the counterexamples by ordering and
// turns each, reordered (x.Counterexamples, one of reordered), into a
// scenario that can be saved.
func NewExploreResult(
	s *lab.Scenario,
	x *lab.Exploration,
	budget int,
	deadline time.Duration,
	reordered []lab.Reordering,
) (*ExploreResult, error) {
	r := &ExploreResult{Scenario: s, X: x, Budget: budget, Deadline: deadline, actors: map[string]int{}}
	for _, e := range s.Events {
		if _, seen := r.actors[e.Actor]; e.Actor != "" && !seen {
			r.actors[e.Actor] = len(r.actors)
		}
	}
	for _, pe := range x.Policies {
		row := ExploreRow{PolicyExploration: pe}
		if c := pe.Counterexample; c != nil {
			row.Ordering = r.ordering(c.Order)
			row.Ordering.Firsts = append(row.Ordering.Firsts, FirstViolation{pe.Policy, c.Step, c.Invariant, c.Class})
		}
		r.Rows = append(r.Rows, row)
	}
	for _, o := range r.Orderings {
		if err := r.prepare(o, reordered); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// ordering finds or adds the ordering order.
func (r *ExploreResult) ordering(order []int) *Ordering {
	for _, o := range r.Orderings {
		if slices.Equal(o.Order, order) {
			return o
		}
	}
	o := &Ordering{Label: string(rune('A' + len(r.Orderings)%26)), Order: order}
	r.Orderings = append(r.Orderings, o)
	return o
}

// prepare fills in the ordering's events and the scenario to save: the
// explored events (a split write as its send and deliver) in this order,
// the description saying where it came from.
func (r *ExploreResult) prepare(o *Ordering, reordered []lab.Reordering) error {
	i := slices.IndexFunc(reordered, func(ro lab.Reordering) bool { return slices.Equal(ro.Order, o.Order) })
	if i < 0 {
		return fmt.Errorf("ordering %s was not reordered", o.Label)
	}
	sc := new(lab.Scenario)
	*sc = *reordered[i].Scenario // a copy: its title and description are the page's to word
	// The page shows the explored events, "send #N" and "deliver #N" as
	// the explorer names them; the saved scenario gets valid ids instead.
	o.Events = make([]lab.Event, len(o.Order))
	for i, n := range o.Order {
		o.Events[i] = r.X.Events[n-1]
	}
	// Its own words are the note; the original's lesson, true of another
	// order, stays only as the original's. The title says it is a reordering.
	sc.Title = export.Cut("Reordered: "+r.Scenario.Title, lab.MaxTitle)
	sc.Description = joinDescription(
		o.note(r.Scenario.Title),
		export.Original(export.LessonLabel("The original", export.BeforeReordering), sc.Description),
	)
	b, err := json.Marshal(sc)
	if err != nil {
		return fmt.Errorf("encode ordering %s: %w", o.Label, err)
	}
	o.Source = string(b)
	return nil
}

// note says where a saved counterexample came from.
func (o *Ordering) note(title string) string {
	var firsts []string
	for _, f := range o.Firsts {
		firsts = append(firsts, fmt.Sprintf("%s reaches %s (%s) at step %d", f.Policy, f.Class, f.Invariant, f.Step))
	}
	return fmt.Sprintf("A counterexample found by exploring every ordering of “%s”: its events in the order %s. %s.",
		title, orderText(o.Order), strings.Join(firsts, "; "))
}

// joinDescription puts the note before the original description, cutting
// the latter short when both would not fit.
func joinDescription(note, desc string) string {
	if desc == "" {
		return note
	}
	room := lab.MaxDescription - utf8.RuneCountInString(note) - 2
	if room < 2 {
		return note
	}
	if utf8.RuneCountInString(desc) > room {
		desc = string([]rune(desc)[:room-1]) + "…"
	}
	return note + "\n\n" + desc
}

// Policies lists the policies an ordering breaks, for the run page's columns.
func (o *Ordering) Policies() []lab.Policy {
	ps := make([]lab.Policy, len(o.Firsts))
	for i, f := range o.Firsts {
		ps[i] = f.Policy
	}
	return ps
}

// firstsAt lists the policies that reach their worst class at step (1-based).
func (o *Ordering) firstsAt(step int) []FirstViolation {
	var out []FirstViolation
	for _, f := range o.Firsts {
		if f.Step == step {
			out = append(out, f)
		}
	}
	return out
}

// worst is the most severe class the ordering's policies reach.
func (o *Ordering) worst() lab.Class {
	var w lab.Class
	for _, f := range o.Firsts {
		if f.Class.Severity() > w.Severity() {
			w = f.Class
		}
	}
	return w
}

// lastStep is the latest first violation: the events after it only finish
// the ordering.
func (o *Ordering) lastStep() int {
	last := 0
	for _, f := range o.Firsts {
		last = max(last, f.Step)
	}
	return last
}

func (r *ExploreResult) actorClass(actor string) string {
	i, ok := r.actors[actor]
	if !ok {
		return "actor actor-none"
	}
	return "actor actor-" + itoa(i%8)
}

// safe reports whether the policy broke nothing in the orderings counted.
func (row ExploreRow) safe() bool { return row.AnyViolating.Sign() == 0 }

// worst is the policy's most severe class over the orderings, or "".
func (row ExploreRow) worst() lab.Class {
	if row.Worst == nil {
		return ""
	}
	return *row.Worst
}

// byClass is how many orderings have c as their most severe class.
func (row ExploreRow) byClass(c lab.Class) *big.Int {
	if n := row.ByClass[c]; n != nil {
		return n
	}
	return new(big.Int)
}

// others lists the classes other than the worst that some orderings reach,
// for the line under a bar: "also deposed in 50, overrun in 300".
func (row ExploreRow) others() []lab.Class {
	var out []lab.Class
	for _, c := range lab.Classes() {
		if c != row.worst() && row.byClass(c).Sign() > 0 {
			out = append(out, c)
		}
	}
	return out
}
