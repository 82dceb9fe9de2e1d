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
	first     [numPolicies]*Counterexample
}

// exploreNaively replays every linearization of the partial order, built
// here from the spec's words rather than from partialOrder.
func exploreNaively(s *Scenario) *naive {
	nv := &naive{}
	for p := range nv.violating {
		nv.violating[p] = map[Invariant]int{}
	}
	before := orderConstraints(s.Events)
	placed := make([]bool, len(s.Events))
	var order []int
	var walk func()
	walk = func() {
		if len(order) == len(s.Events) {
			nv.add(s, order)
			return
		}
		for e := range s.Events {
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

// orderConstraints lists, per event, the events that must run before it.
func orderConstraints(events []Event) [][]int {
	before := make([][]int, len(events))
	for i, e := range events {
		for j, f := range events {
			switch {
			case e.Actor != "" && f.Actor == e.Actor && j < i:
			case e.Kind == Deliver && f.Kind == Send && f.ID == e.Request:
			case e.Kind == Commit && f.Kind == Deliver && f.Request == e.Request:
			case e.Kind == Restart && f.Kind == Restart && f.Resource == e.Resource && j < i:
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
func (nv *naive) add(s *Scenario, order []int) {
	nv.orderings++
	r, err := Reorder(s, order)
	if err != nil {
		panic(err)
	}
	tr := Replay(r)
	for p, policy := range Policies {
		vs := tr.Summary[policy].Violations
		if len(vs) == 0 {
			continue
		}
		nv.any[p]++
		first := Counterexample{Order: slices.Clone(order), Step: vs[0].Step, Invariant: vs[0].Kind}
		seen := map[Invariant]bool{}
		for _, v := range vs {
			if !seen[v.Kind] {
				seen[v.Kind] = true
				nv.violating[p][v.Kind]++
			}
			if v.Step < first.Step || v.Step == first.Step && slices.Index(Invariants, v.Kind) < slices.Index(Invariants, first.Invariant) {
				first.Step, first.Invariant = v.Step, v.Kind
			}
		}
		if nv.first[p] == nil || first.Step < nv.first[p].Step {
			nv.first[p] = &first
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
		for _, inv := range Invariants {
			diff(string(pe.Policy)+" "+string(inv), pe.Violating[inv], nv.violating[p][inv])
		}
		diff(string(pe.Policy)+" counterexample", describeCE(pe.Counterexample), describeCE(nv.first[p]))
	}
	return diffs
}

func describeCE(c *Counterexample) string {
	if c == nil {
		return "none"
	}
	return fmt.Sprintf("%v %s at step %d", c.Order, c.Invariant, c.Step)
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
