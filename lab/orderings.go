package lab

import "iter"

// ExploredEvents returns the events Explore orders for s under opt: by
// default each write split into a send with id "#N" and its deliver (see
// Exploration.Events). Orderings index them.
func ExploredEvents(s *Scenario, opt ExploreOptions) []Event {
	return explored(s, withDefaults(opt).Writes)
}

// Orderings yields every ordering that Explore follows for a validated
// scenario under opt (its Writes and Expiry), as the 1-based indices into
// ExploredEvents of Counterexample.Order, smallest first when compared as
// lists. The yielded slice is reused: copy it to keep it. Their number
// grows fast with the events; stop early by breaking out of the loop.
func Orderings(s *Scenario, opt ExploreOptions) iter.Seq[[]int] {
	return func(yield func([]int) bool) {
		po := exploredOrder(s, opt)
		placed := make([]byte, placedLen(len(po)))
		order := make([]int, 0, len(po))
		orderings(po, placed, order, yield)
	}
}

func orderings(po partialOrder, placed []byte, order []int, yield func([]int) bool) bool {
	if len(order) == len(po) {
		return yield(order)
	}
	for e := range po {
		if !po.ready(placed, e) {
			continue
		}
		setPlaced(placed, e)
		more := orderings(po, placed, append(order, e+1), yield)
		placed[e>>3] &^= 1 << (e & 7)
		if !more {
			return false
		}
	}
	return true
}

// exploredOrder is the partial order Explore follows over the explored events.
func exploredOrder(s *Scenario, opt ExploreOptions) partialOrder {
	opt = withDefaults(opt)
	return orderOf(compile(exploredScenario(s, explored(s, opt.Writes))), opt)
}

// RandomOrdering returns one ordering that Explore follows under opt, as
// Orderings gives them, choosing at each position among the events that
// can run next: pick(n) must return a number in [0, n). The caller brings
// the randomness (and its seed), so the engine stays deterministic.
func RandomOrdering(s *Scenario, opt ExploreOptions, pick func(n int) int) []int {
	po := exploredOrder(s, opt)
	placed := make([]byte, placedLen(len(po)))
	order := make([]int, 0, len(po))
	ready := make([]int, 0, len(po))
	for len(order) < len(po) {
		ready = ready[:0]
		for e := range po {
			if po.ready(placed, e) {
				ready = append(ready, e)
			}
		}
		e := ready[pick(len(ready))]
		setPlaced(placed, e)
		order = append(order, e+1)
	}
	return order
}
