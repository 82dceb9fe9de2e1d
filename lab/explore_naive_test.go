package lab

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// naive is what enumerating every ordering and replaying each from scratch
// finds: the reference the explorer is checked against.
type naive struct {
	orderings int
	any       [numPolicies]int
	violating [numPolicies]map[Invariant]int
	byClass   [numPolicies]map[Class]int // orderings whose most severe class is this one
	worst     [numPolicies]Class
	// first holds, per policy and class, the ordering that reaches the
	// class soonest, the least of those on ties.
	first [numPolicies]map[Class]*Counterexample
}

// exploreNaively replays every linearization of the partial order over the
// explored events, both built here from the spec's words rather than from
// explored and partialOrder.
func exploreNaively(s *Scenario, w Writes, ex Expiry) *naive {
	events := naiveEvents(s, w)
	return naiveWalk(s, events, orderConstraints(events, ex))
}

// naiveWalk replays every linearization of before over events.
func naiveWalk(s *Scenario, events []Event, before [][]int) *naive {
	nv := &naive{}
	for p := range nv.violating {
		nv.violating[p], nv.byClass[p], nv.first[p] = map[Invariant]int{}, map[Class]int{}, map[Class]*Counterexample{}
	}
	placed := make([]bool, len(events))
	var order []int
	var walk func()
	walk = func() {
		if len(order) == len(events) {
			nv.add(s, events, order)
			return
		}
		for e := range events {
			if !placed[e] && allPlaced(before[e], placed) {
				placed[e] = true
				order = append(order, e+1)
				walk()
				order = order[:len(order)-1]
				placed[e] = false
			}
		}
	}
	walk()
	return nv
}

// naiveEvents splits each write at file place N into a send "#N" and its
// deliver, unless writes are atomic.
func naiveEvents(s *Scenario, w Writes) []Event {
	var out []Event
	for i, e := range s.Events {
		if e.Kind == Write && w != WritesAtomic {
			e.Kind, e.ID = Send, fmt.Sprintf("#%d", i+1)
			out = append(out, e, Event{Kind: Deliver, Request: e.ID})
			continue
		}
		out = append(out, e)
	}
	return out
}

// orderConstraints lists, per event, the events that must run before it.
func orderConstraints(events []Event, ex Expiry) [][]int {
	free := func(e Event) bool { return e.Kind == Expire && ex != ExpiryProgram }
	sameAcquire := func(e, f Event) bool { return f.Kind == Acquire && f.Actor == e.Actor && f.Scope == e.Scope }
	// nearest acquire of the expire i's actor and scope on one side
	nearest := func(i, step int) int {
		for j := i + step; j >= 0 && j < len(events); j += step {
			if sameAcquire(events[i], events[j]) {
				return j
			}
		}
		return -1
	}
	before := make([][]int, len(events))
	for i, e := range events {
		for j, f := range events {
			switch {
			case free(e) && j == nearest(i, -1):
			case free(f) && i == nearest(j, +1):
			case free(e) || free(f):
				continue
			case e.Actor != "" && f.Actor == e.Actor && j < i:
			case e.Kind == Deliver && f.Kind == Send && f.ID == e.Request:
			case e.Kind == Commit && f.Kind == Deliver && f.Request == e.Request:
			case e.Kind == Restart && f.Kind == Restart && f.Resource == e.Resource && f.Scope == e.Scope && j < i:
			default:
				continue
			}
			before[i] = append(before[i], j)
		}
	}
	return before
}

func allPlaced(list []int, placed []bool) bool {
	for _, j := range list {
		if !placed[j] {
			return false
		}
	}
	return true
}

// add replays one ordering and counts what each policy broke.
func (nv *naive) add(s *Scenario, events []Event, order []int) {
	nv.orderings++
	r := *s
	r.Events = nil
	for _, n := range order {
		r.Events = append(r.Events, events[n-1])
	}
	tr := Replay(&r)
	for p, policy := range policies {
		vs := tr.Summary[policy].Violations
		if len(vs) == 0 {
			continue
		}
		nv.any[p]++
		seen := map[Invariant]bool{}
		firsts := map[Class]*Counterexample{}
		worst := Class("")
		for _, v := range vs {
			if !seen[v.Kind] {
				seen[v.Kind] = true
				nv.violating[p][v.Kind]++
			}
			if f := firsts[v.Class]; f == nil || v.Step < f.Step ||
				v.Step == f.Step && slices.Index(invariants[:], v.Kind) < slices.Index(invariants[:], f.Invariant) {
				firsts[v.Class] = &Counterexample{Order: slices.Clone(order), Step: v.Step, Invariant: v.Kind, Class: v.Class}
			}
			if worst == "" || slices.Index(classes[:], v.Class) < slices.Index(classes[:], worst) {
				worst = v.Class
			}
		}
		nv.byClass[p][worst]++
		if nv.worst[p] == "" || slices.Index(classes[:], worst) < slices.Index(classes[:], nv.worst[p]) {
			nv.worst[p] = worst
		}
		for c, f := range firsts {
			if best := nv.first[p][c]; best == nil || f.Step < best.Step {
				nv.first[p][c] = f
			}
		}
	}
}

// compare reports every difference between the explorer and the naive
// enumeration, as "what: got X, want Y".
func (nv *naive) compare(x *Exploration) []string {
	var diffs []string
	diff := func(what string, got, want any) {
		if fmt.Sprint(got) != fmt.Sprint(want) {
			diffs = append(diffs, fmt.Sprintf("%s = %v, want %v", what, got, want))
		}
	}
	diff("orderings", x.Orderings, nv.orderings)
	diff("complete", x.Complete, true)
	for p, pe := range x.Policies {
		diff(string(pe.Policy)+" any", pe.AnyViolating, nv.any[p])
		for _, inv := range invariants {
			diff(string(pe.Policy)+" "+string(inv), pe.Violating[inv], nv.violating[p][inv])
		}
		for _, c := range classes {
			diff(string(pe.Policy)+" by class "+string(c), pe.ByClass[c], nv.byClass[p][c])
		}
		worst := Class("none")
		if pe.Worst != nil {
			worst = *pe.Worst
		}
		want := nv.worst[p]
		if want == "" {
			want = "none"
		}
		diff(string(pe.Policy)+" worst", worst, want)
		diff(string(pe.Policy)+" counterexample", describeCE(pe.Counterexample), describeCE(nv.first[p][nv.worst[p]]))
	}
	return diffs
}

func describeCE(c *Counterexample) string {
	if c == nil {
		return "none"
	}
	return fmt.Sprintf("%v %s (%s) at step %d", c.Order, c.Invariant, c.Class, c.Step)
}

// genSmall builds a random scenario of 2 or 3 actors and 4 to 8 events,
// weighted towards leases, sends, delivers and commits so that orderings
// matter.
func genSmall(rng *rand.Rand) *Scenario {
	s := &Scenario{Version: 1, Title: "generated", Scopes: map[string]Scope{"s0": {FirstToken: 41}},
		Resources: map[string]Resource{"r0": {Fencing: true, Remember: Remember([]string{"durable", "memory"}[rng.IntN(2)])}}}
	if rng.IntN(3) == 0 {
		s.Scopes["s1"] = Scope{FirstToken: 1}
	}
	if rng.IntN(3) == 0 {
		s.Resources["r1"] = Resource{Fencing: rng.IntN(2) == 0, Remember: Memory}
	}
	actors := 2 + rng.IntN(2)
	var sends []string
	for n := 4 + rng.IntN(5); len(s.Events) < n; {
		e := Event{Actor: fmt.Sprintf("w%d", rng.IntN(actors)), Kind: smallKinds[rng.IntN(len(smallKinds))]}
		fillSmall(rng, s, &e, &sends)
		s.Events = append(s.Events, e)
	}
	return s
}

var smallKinds = []Kind{Acquire, Acquire, Acquire, Write, Write, Send, Send, Send, Deliver, Deliver, Deliver,
	Commit, Commit, Pause, Resume, Expire, Expire, Check, Renew, Release, Restart, Crash, Read}

// fillSmall gives an event the fields its kind takes.
func fillSmall(rng *rand.Rand, s *Scenario, e *Event, sends *[]string) {
	pick := func(names []string) string { return names[rng.IntN(len(names))] }
	scope, resources := pick(SortedNames(s.Scopes)), SortedNames(s.Resources)
	if (e.Kind == Deliver || e.Kind == Commit) && len(*sends) == 0 {
		e.Kind = Send
	}
	switch e.Kind {
	case Acquire, Expire, Renew, Release:
		e.Scope = scope
	case Write, Send:
		v := fmt.Sprintf("v%d", rng.IntN(3))
		e.Value, e.Resource = &v, pick(resources)
		if rng.IntN(3) == 0 {
			e.Op = "op"
		}
		if rng.IntN(6) == 0 {
			e.Token = ptr(int64(40 + rng.IntN(4)))
		}
		if e.Kind == Send {
			e.ID = fmt.Sprintf("q%d", len(*sends))
			*sends = append(*sends, e.ID)
		}
	case Deliver, Commit:
		e.Actor, e.Request = "", (*sends)[rng.IntN(len(*sends))]
	case Restart:
		e.Actor, e.Resource = "", pick(resources)
	}
}

// genSmall3 is a scenario of genSmall with the additions of model 3
// sprinkled over it: split acquires, rmw writes, reads of one resource,
// checks and writes that name their scope, restarts of a scope, and
// scopes and receivers that forget or keep a token per scope.
func genSmall3(rng *rand.Rand) *Scenario {
	s := genSmall(rng)
	s.Scopes["s0"] = Scope{FirstToken: 41, Remember: []Remember{Durable, Memory}[rng.IntN(2)]}
	r := s.Resources["r0"]
	r.Keys = []Remember{Durable, Memory}[rng.IntN(2)]
	r.Tokens = []Tokens{SharedTokens, PerScopeTokens}[rng.IntN(2)]
	s.Resources["r0"] = r
	scopes, resources := SortedNames(s.Scopes), SortedNames(s.Resources)
	pick := func(names []string) string { return names[rng.IntN(len(names))] }
	for i := range s.Events {
		e := &s.Events[i]
		switch {
		case e.Kind == Acquire && rng.IntN(3) == 0:
			e.Split = ptr(rng.IntN(5) != 0)
		case e.Kind == Read && rng.IntN(2) == 0:
			e.Resource = pick(resources)
		case e.Kind == Check && rng.IntN(2) == 0:
			e.Scope = pick(scopes)
		case e.Kind == Write || e.Kind == Send:
			e.RMW = ptr(rng.IntN(4) != 0)
			if rng.IntN(3) == 0 {
				e.Scope = pick(scopes)
			}
		case e.Kind == Restart && rng.IntN(2) == 0:
			e.Resource, e.Scope = "", pick(scopes)
		case e.Kind == Pause && rng.IntN(2) == 0:
			e.Kind, e.Resource = Read, pick(resources) // reads are what rmw writes are about
		}
	}
	return s
}
