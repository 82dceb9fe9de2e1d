package lab

import (
	"context"
	"fmt"
	"maps"
	mathbig "math/big"
)

// DefaultBudget is the number of distinct states Explore visits when
// ExploreOptions.Budget is not set. Explore holds two layers of states at
// a time and a few bytes for each state behind them (Exploration.Bytes
// tells), and one core explores several hundred thousand states a second:
// the default is a second or two and some tens of MB.
const DefaultBudget = 1_000_000

// StopReason says why an exploration stopped before it was complete.
type StopReason string

// The reasons an exploration stops early.
const (
	StopBudget   StopReason = "budget"   // the state budget was reached
	StopDeadline StopReason = "deadline" // the context's deadline passed
	StopCanceled StopReason = "canceled" // the context was canceled
)

// Writes says how the explorer treats a write (model 2).
type Writes string

// The two ways to explore a write.
const (
	// WritesSplit explores each write as a send with id "#N" and its
	// deliver, so the network can delay it (the default).
	WritesSplit Writes = "split"
	// WritesAtomic keeps each write one step, as model 1 did.
	WritesAtomic Writes = "atomic"
)

// Expiry says how the explorer orders an expire (model 2).
type Expiry string

// The two ways to order an expire.
const (
	// ExpiryFree lets the clock expire a lease at any time between the
	// actor's grant and its next acquire of the scope (the default).
	ExpiryFree Expiry = "free"
	// ExpiryProgram keeps each expire at its place in its actor's program,
	// as model 1 did.
	ExpiryProgram Expiry = "program"
)

// ParseWrites reads the writes switch: "" (the default, split), "split" or "atomic".
func ParseWrites(s string) (Writes, error) {
	switch Writes(s) {
	case "", WritesSplit:
		return WritesSplit, nil
	case WritesAtomic:
		return WritesAtomic, nil
	}
	return "", fmt.Errorf("writes %q: use split or atomic", s)
}

// ParseExpiry reads the expiry switch: "" (the default, free), "free" or "program".
func ParseExpiry(s string) (Expiry, error) {
	switch Expiry(s) {
	case "", ExpiryFree:
		return ExpiryFree, nil
	case ExpiryProgram:
		return ExpiryProgram, nil
	}
	return "", fmt.Errorf("expiry %q: use free or program", s)
}

// ExploreOptions bound an exploration. The deadline and cancellation come
// from the context given to Explore. The zero value explores as model 2
// does: writes split, expiry free.
type ExploreOptions struct {
	// Budget is the most distinct states Explore visits; 0 means DefaultBudget.
	Budget int
	// Progress, when set, is called every few hundred states stepped with
	// the number of distinct states visited so far, for a progress bar.
	Progress func(states int)
	// Writes: "" or WritesSplit, or WritesAtomic.
	Writes Writes
	// Expiry: "" or ExpiryFree, or ExpiryProgram.
	Expiry Expiry
	// Workers, when above one, splits the work on each layer of states
	// into that many parts, which RunAll runs. The engine starts no
	// goroutine: RunAll must call every function it is given, at once or
	// one after another, and return when all have returned. Without
	// RunAll the parts run one after another. The result is the same
	// whatever Workers and RunAll are.
	Workers int
	RunAll  func(tasks []func())
	// After, when not nil, is the whole partial order over the scenario's
	// events, as an import of logs knows it: After[i] lists the 1-based
	// indices of the events that every ordering runs before event i+1.
	// Each entry must name an earlier event of the file (so the order has
	// no cycle); others are ignored. A deliver still follows its send and
	// a commit every deliver of its request. Nothing else orders the
	// events, and writes stay atomic and expiry in place: Writes and
	// Expiry are set to WritesAtomic and ExpiryProgram.
	After [][]int
}

// Exploration is what Explore found over the orderings of a scenario's
// events. When Complete is false, the counts cover only the orderings that
// were followed to their end before it stopped (Explore walks layer by
// layer, so none, unless it stopped in the last layer), and each
// Counterexample is the least among the steps taken, not necessarily the
// least of all.
type Exploration struct {
	Writes    Writes              `json:"writes"`            // how writes were explored
	Expiry    Expiry              `json:"expiry"`            // how expires were ordered
	Events    []Event             `json:"events"`            // the explored events; Counterexample.Order indexes them
	Orderings *mathbig.Int        `json:"orderings"`         // orderings counted, all of them when Complete
	States    int                 `json:"states"`            // distinct states visited
	Bytes     int                 `json:"bytes"`             // the most memory the search held at once
	Complete  bool                `json:"complete"`          // every ordering was counted
	Stopped   StopReason          `json:"stopped,omitempty"` // why not, when not Complete
	Policies  []PolicyExploration `json:"policies"`          // in the order of Policies
}

// PolicyExploration is one policy's verdict over every ordering explored.
// Violating has an entry for each of the six invariants, zero included;
// ByClass one for each of the four classes: the orderings whose most
// severe violation is of that class. Worst is the most severe class any
// ordering reaches, nil when none.
type PolicyExploration struct {
	Policy         Policy                     `json:"policy"`
	AnyViolating   *mathbig.Int               `json:"any_violating"`
	Violating      map[Invariant]*mathbig.Int `json:"violating"`
	ByClass        map[Class]*mathbig.Int     `json:"by_class"`
	Worst          *Class                     `json:"worst"`
	Counterexample *Counterexample            `json:"counterexample"`
}

// Counterexample is an ordering that reaches a policy's worst class: of
// all such orderings, the one whose first violation of that class comes
// after the fewest events, then the least when the orderings are compared
// as lists of event indices. Order lists the 1-based indices of the
// explored events (Exploration.Events) in the order they run;
// Exploration.Reorder turns it into a scenario. Step is the 1-based
// position in Order where the policy first breaks an invariant of Class,
// and Invariant the first of that class broken there, in the order of
// Invariants.
type Counterexample struct {
	Order     []int     `json:"order"`
	Step      int       `json:"step"`
	Invariant Invariant `json:"invariant"`
	Class     Class     `json:"class"`
}

// Of returns the exploration of policy p, or nil.
func (x *Exploration) Of(p Policy) *PolicyExploration {
	for i := range x.Policies {
		if x.Policies[i].Policy == p {
			return &x.Policies[i]
		}
	}
	return nil
}

// Explore replays every ordering of a validated scenario's events that the
// workers' programs allow, under every policy, and counts per policy the
// orderings that break each invariant and that reach each class. By
// default (model 2) each write is explored as a send "#N" and its deliver,
// and an expire is free between the actor's acquires of its scope; the
// options restore model 1's rules. An ordering keeps each actor's other
// events in their order, puts a deliver after its send and a commit after
// every deliver of its request, and keeps each resource's restarts in
// their order; deliver, commit and restart are constrained by nothing
// else. Each step decides as in Replay: an event that cannot happen where
// an ordering puts it is skipped, and under fenced-racy a deliver is
// checked when a commit naming it runs later in that ordering.
//
// Explore visits each distinct state once (the state of every policy, plus
// the invariants each has broken so far), layer by layer: the states after
// one event, then after two, and so on. Its cost follows the distinct
// states rather than the orderings, which it counts over the states, and
// it holds two layers at a time. It stops early, and says so, when the
// budget of states is reached or ctx is done.
func Explore(ctx context.Context, s *Scenario, opt ExploreOptions) *Exploration {
	x := newExplorer(ctx, s, opt, groupsOf)
	x.run()
	return x.result()
}

// result turns the last layer's tally into the exploration: each policy
// gets what its lane found.
func (x *explorer) result() *Exploration {
	t := x.final
	if t == nil {
		t = &finalTally{}
	}
	ex := &Exploration{Writes: x.opt.Writes, Expiry: x.opt.Expiry, Events: exploredEvents(x.events),
		Orderings: t.all.bigInt(), States: x.states, Bytes: x.held,
		Complete: x.stopped == "", Stopped: x.stopped}
	for p, policy := range policies {
		li := x.groups.lane[p]
		pe := PolicyExploration{Policy: policy, AnyViolating: t.any[li].bigInt(),
			Violating: make(map[Invariant]*mathbig.Int, numInvariants),
			ByClass:   make(map[Class]*mathbig.Int, numClasses)}
		for k, inv := range invariants {
			pe.Violating[inv] = t.violating[li][k].bigInt()
		}
		for c, class := range classes {
			pe.ByClass[class] = t.byClass[li][c].bigInt()
		}
		for c, class := range classes {
			if f := x.best[li][c]; f.step > 0 {
				pe.Worst = &class
				pe.Counterexample = &Counterexample{Order: x.order.complete(f.prefix), Step: f.step, Invariant: f.inv, Class: class}
				break
			}
		}
		ex.Policies = append(ex.Policies, pe)
	}
	return ex
}

// Reorder returns a copy of s with its events in a new order: order lists
// each event's 1-based index in s exactly once (an exploration's
// counterexample indexes the explored events instead: use
// Exploration.Reorder). The copy shares nothing with s, so it can be
// edited and saved like any scenario.
func Reorder(s *Scenario, order []int) (*Scenario, error) {
	return reorder(s, s.Events, "events", order)
}

// reorder returns a copy of s whose events are events in the given order.
func reorder(s *Scenario, events []Event, what string, order []int) (*Scenario, error) {
	if len(order) != len(events) {
		return nil, fmt.Errorf("reorder: the order has %d entries for %d %s", len(order), len(events), what)
	}
	c := *s
	c.Scopes, c.Resources = maps.Clone(s.Scopes), maps.Clone(s.Resources)
	c.Events = make([]Event, len(order))
	seen := make([]bool, len(order))
	for i, n := range order {
		if n < 1 || n > len(order) || seen[n-1] {
			return nil, fmt.Errorf("reorder: entry %d is %d: each of 1..%d must appear once", i+1, n, len(order))
		}
		seen[n-1] = true
		c.Events[i] = copyEvent(events[n-1])
	}
	return &c, nil
}

// exploredEvents copies the events an exploration ran.
func exploredEvents(events []Event) []Event {
	out := make([]Event, len(events))
	for i, e := range events {
		out[i] = copyEvent(e)
	}
	return out
}

func copyEvent(e Event) Event {
	if e.Value != nil {
		e.Value = ptr(*e.Value)
	}
	if e.Token != nil {
		e.Token = ptr(*e.Token)
	}
	if e.Split != nil {
		e.Split = ptr(*e.Split)
	}
	if e.RMW != nil {
		e.RMW = ptr(*e.RMW)
	}
	return e
}
