package lab

import "iter"

// Orderings yields every ordering of a validated scenario's events that
// Explore follows, as the 1-based indices of Counterexample.Order, smallest
// first when compared as lists. The yielded slice is reused: copy it to
// keep it. Their number grows fast with the events; stop early by
// breaking out of the loop.
func Orderings(s *Scenario) iter.Seq[[]int] {
	return func(yield func([]int) bool) {
		po := newPartialOrder(compile(s))
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

// RandomOrdering returns one ordering that Explore follows, choosing at
// each position among the events that can run next: pick(n) must return
// a number in [0, n). The caller brings the randomness (and its seed), so
// the engine stays deterministic.
func RandomOrdering(s *Scenario, pick func(n int) int) []int {
	po := newPartialOrder(compile(s))
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
