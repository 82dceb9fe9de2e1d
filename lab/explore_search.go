package lab

import (
	"context"
	"errors"
	"slices"
)

// checkEvery is how many steps run between two looks at the context, and
// between two calls of Progress.
const checkEvery = 1024

// explorer walks the orderings of one scenario depth first, trying the
// events that can run next in the order of their indices, so that it meets
// the orderings in increasing order and each state first by its least
// prefix.
type explorer struct {
	ctx     context.Context
	opt     ExploreOptions
	n       int
	r       *replayer // runs each step, loaded from the state it starts in
	codec   *codec
	order   partialOrder
	table   stateTable
	frames  []tally // per depth, the tally being summed there
	scratch tally   // the tally of a state met before, read back
	path    []int32 // the events of the current prefix
	buf     []byte
	best    [numPolicies][numClasses]finding
	steps   int
	stopped StopReason
}

// finding is a policy's counterexample so far for one class: the prefix
// of the ordering up to its first violation of that class, which is at
// step len(prefix).
type finding struct {
	step   int
	prefix []int32
	inv    Invariant
}

func newExplorer(ctx context.Context, s *Scenario, opt ExploreOptions) *explorer {
	if opt.Budget <= 0 {
		opt.Budget = DefaultBudget
	}
	if opt.Writes == "" {
		opt.Writes = WritesSplit
	}
	if opt.Expiry == "" {
		opt.Expiry = ExpiryFree
	}
	r := newReplayer(exploredScenario(s, explored(s, opt.Writes)))
	r.quiet = true
	n := len(r.pr.events)
	return &explorer{ctx: ctx, opt: opt, n: n, r: r, codec: newCodec(r.pr), order: newPartialOrder(r.pr, opt.Expiry),
		frames: make([]tally, n+1), path: make([]int32, 0, n)}
}

// run explores from the state before any event and returns its tally.
func (x *explorer) run() *tally {
	key := x.codec.encode(nil, x.r, make([]byte, x.codec.placedLen), -1, 0)
	id, _ := x.table.insert(key, hashKey(key))
	x.visit(x.table.key(id), 0, 0)
	return &x.frames[0]
}

// visit sums into x.frames[depth] the completions of the state key, reached
// after depth events with the invariants in v broken.
func (x *explorer) visit(key []byte, depth int, v violated) {
	acc := &x.frames[depth]
	*acc = tally{}
	if depth == x.n {
		acc.all.lo = 1
		return
	}
	for e := range x.n {
		if !x.order.ready(key, e) {
			continue
		}
		if x.stop() {
			return
		}
		cv := v | x.step(key, e)
		x.path = append(x.path[:depth], int32(e))
		x.notice(v, cv)
		child := x.child(key, e, depth, cv)
		if child == nil {
			return
		}
		acc.addChild(child, cv)
		if x.stopped != "" {
			return
		}
	}
}

// step loads the state key, runs event e and returns what the step broke.
func (x *explorer) step(key []byte, e int) violated {
	x.codec.load(x.r, key)
	x.r.step(e)
	var v violated
	for p := range x.r.lanes {
		for _, vi := range x.r.lanes[p].violations {
			v |= 1 << (p*bitsPerPolicy + int(bitOf(vi)))
		}
	}
	return v
}

// child returns the tally of the state after event e: read back when the
// state was met before, else counted now. It returns nil when the budget
// stops the exploration before the state is stored.
func (x *explorer) child(key []byte, e, depth int, cv violated) *tally {
	x.buf = x.codec.encode(x.buf[:0], x.r, key, e, cv)
	h := hashKey(x.buf)
	if id, ok := x.table.find(x.buf, h); ok {
		readTally(x.table.tally(id), &x.scratch)
		return &x.scratch
	}
	id, ok := 0, x.table.len() < x.opt.Budget
	if ok {
		id, ok = x.table.insert(x.buf, h)
	}
	if !ok {
		x.stopped = StopBudget
		return nil
	}
	x.visit(x.table.key(id), depth+1, cv)
	t := &x.frames[depth+1]
	if x.stopped == "" && !x.table.setTally(id, appendTally(x.buf[:0], t, cv)) {
		x.stopped = StopBudget
	}
	return t
}

// notice keeps, per policy and class, the step of the current prefix that
// first reaches the class as a counterexample, when no ordering seen so
// far reaches it sooner. Orderings are met in increasing order, so a tie
// keeps the one found first.
func (x *explorer) notice(v, cv violated) {
	for p := range x.best {
		was, now := v.byPolicy(p), cv.byPolicy(p)
		if was == now {
			continue
		}
		for c := range x.best[p] {
			if was&classMask[c] != 0 || now&classMask[c] == 0 {
				continue
			}
			if f := &x.best[p][c]; f.step == 0 || len(x.path) < f.step {
				*f = finding{step: len(x.path), prefix: slices.Clone(x.path), inv: firstOf(now &^ was & classMask[c])}
			}
		}
	}
}

// firstOf is the first invariant, in the order of Invariants, among bits.
func firstOf(bits uint64) Invariant {
	for k, m := range invMask {
		if bits&m != 0 {
			return invariants[k]
		}
	}
	return ""
}

// stop looks at the context every checkEvery steps, and reports whether
// the exploration must stop.
func (x *explorer) stop() bool {
	if x.steps%checkEvery == 0 {
		if x.opt.Progress != nil {
			x.opt.Progress(x.table.len())
		}
		if err := x.ctx.Err(); errors.Is(err, context.DeadlineExceeded) {
			x.stopped = StopDeadline
		} else if err != nil {
			x.stopped = StopCanceled
		}
	}
	x.steps++
	return x.stopped != ""
}
