package lab

// partialOrder lists, per explored event, the events that every ordering
// runs before it: the actor's previous event; for a deliver, the send of
// its request; for a commit, every deliver of its request; for a restart,
// the resource's (model 3: or the scope's) previous restart. Under ExpiryFree an expire is no part
// of its actor's program: it runs after the actor's acquire of the same
// scope that precedes it in the file and before the one that follows it,
// and the actor's other events are chained past it. The file's order is
// not always one of the orderings: a deliver written before its send is
// only tried after it. There is no cycle: the chains of actors and
// restarts go forward in the file, a free expire sits between two events
// of one such chain, and the other constraints only go from a send to a
// deliver to a commit, which nothing else waits for.
type partialOrder [][]int32

func newPartialOrder(pr *program, expiry Expiry) partialOrder {
	po := make(partialOrder, len(pr.events))
	lastByActor := map[int]int{}
	lastRestart := map[int]int{}
	sendOf := map[int]int{}
	delivers := map[int][]int32{}
	for i, e := range pr.events {
		switch {
		case e.kind == Expire && expiry != ExpiryProgram:
			po.freeExpire(pr, i)
		case e.actor >= 0:
			po.chain(lastByActor, e.actor, i)
		case e.kind == Restart && e.scope >= 0:
			po.chain(lastRestart, MaxResources+e.scope, i) // model 3: a lease service's restarts
		case e.kind == Restart:
			po.chain(lastRestart, e.resource, i)
		case e.kind == Deliver:
			delivers[e.request] = append(delivers[e.request], int32(i))
		}
		if e.kind == Send {
			sendOf[e.request] = i
		}
	}
	for i, e := range pr.events {
		switch e.kind {
		case Deliver:
			po[i] = append(po[i], int32(sendOf[e.request]))
		case Commit:
			po[i] = append(po[i], delivers[e.request]...)
		}
	}
	return po
}

// freeExpire puts the expire i after the acquire of the same actor and
// scope that precedes it in the file, and before the one that follows it.
func (po partialOrder) freeExpire(pr *program, i int) {
	e := pr.events[i]
	same := func(j int) bool {
		f := pr.events[j]
		return f.kind == Acquire && f.actor == e.actor && f.scope == e.scope
	}
	for j := i - 1; j >= 0; j-- {
		if same(j) {
			po[i] = append(po[i], int32(j))
			break
		}
	}
	for j := i + 1; j < len(pr.events); j++ {
		if same(j) {
			po[j] = append(po[j], int32(i))
			break
		}
	}
}

// chain puts event i after the last event of the same key.
func (po partialOrder) chain(last map[int]int, key, i int) {
	if prev, ok := last[key]; ok {
		po[i] = append(po[i], int32(prev))
	}
	last[key] = i
}

// ready reports whether event e can run next after the events in placed.
func (po partialOrder) ready(placed []byte, e int) bool {
	if isPlaced(placed, e) {
		return false
	}
	for _, p := range po[e] {
		if !isPlaced(placed, int(p)) {
			return false
		}
	}
	return true
}

// complete extends a prefix of an ordering to the least whole ordering
// that starts with it: at each position the smallest event index that can
// run. It returns the 1-based indices of Counterexample.Order.
func (po partialOrder) complete(prefix []int32) []int {
	placed := make([]byte, placedLen(len(po)))
	order := make([]int, 0, len(po))
	for _, e := range prefix {
		setPlaced(placed, int(e))
		order = append(order, int(e)+1)
	}
	for len(order) < len(po) {
		for e := range po {
			if po.ready(placed, e) {
				setPlaced(placed, e)
				order = append(order, e+1)
				break
			}
		}
	}
	return order
}

// placedLen is the size in bytes of a bitset of n events.
func placedLen(n int) int { return (n + 7) / 8 }

func isPlaced(placed []byte, e int) bool { return placed[e>>3]&(1<<(e&7)) != 0 }

func setPlaced(placed []byte, e int) { placed[e>>3] |= 1 << (e & 7) }
