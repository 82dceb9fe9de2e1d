package lab

import (
	"context"
	"errors"
)

// The explorer walks the states layer by layer. Every step runs one event,
// so a state reached after d events has d events placed, whatever the
// ordering: the states form layers, and every step goes from one layer to
// the next. Layer d+1 is built from layer d alone, which is then dropped;
// what is kept of the layers behind is one link per state, to rebuild a
// counterexample.
//
// Each state of a layer has a rank: its place when the layer is sorted by
// its least prefix, the smallest ordering (as a list of event indices)
// that reaches it. A state's least prefix is its parent's least prefix
// plus one event, so comparing (parent's rank, event) compares least
// prefixes: that pair is the state's link, and the state with the least
// link comes first. Ranks make the search deterministic: the same states,
// counts and counterexamples whatever the number of workers, and the same
// as stepping each layer's states in rank order, each event in index order.
//
// A state's count is the number of orderings of its events that reach it
// (orderings of the prefix, not of the whole). A child's count is the sum
// of its parents' counts, so the last layer's counts add up to every
// ordering; the invariants broken are part of a state, so the last layer
// also tells how many orderings broke each.
//
// Layer d+1 is built in chunks of layer d's ranks, in two phases. Each
// stepper takes a contiguous part of the chunk, runs every event that can
// run next from each of its states, and sorts the children by their
// shard (a range of hashes). Then each shard's owner merges what the
// steppers found for it, in the steppers' order, so that it meets each
// child first by its least link: the shard's states are stored in link
// order, and merging the shards by link gives the ranks.

// chunkStates is how many states of a layer one chunk steps: enough to
// keep every core busy between two joins, few enough that the context is
// looked at, and Progress called, every few milliseconds.
const chunkStates = 512

// maxWorkers bounds ExploreOptions.Workers: past a few, the joins and the
// merge of the shards cost more than they save.
const maxWorkers = 16

// explorer walks the orderings of one scenario (see above).
type explorer struct {
	ctx      context.Context
	opt      ExploreOptions
	n        int
	codec    *codec
	groups   laneGroups // the lanes that run, one per group of policies that decide alike
	order    partialOrder
	events   []Event
	steppers []*stepper
	links    []links // per layer, per rank: the state's link
	cur      *layer
	spare    []*shard // the shards of the layer before cur, to reuse
	states   int
	held     int     // the most bytes held at once
	growth   float64 // how many times larger the last layer was than the one before
	best     [numPolicies][numClasses]finding
	final    *finalTally
	stopped  StopReason
}

// finding is a lane's counterexample so far for one class (best holds
// them per lane and class): the prefix of the ordering up to its first
// violation of that class, which is at step len(prefix).
type finding struct {
	step   int
	prefix []int32
	inv    Invariant
}

// notice is the least transition of a layer that first reaches a class.
type notice struct {
	link uint64 // noLink: none
	inv  Invariant
}

const noLink = ^uint64(0)

// A link is a parent's rank and an event.
func linkOf(rank, e int) uint64 { return uint64(rank)<<16 | uint64(e) }
func linkRank(l uint64) int     { return int(l >> 16) }
func linkEvent(l uint64) int    { return int(l & 0xffff) }

// stepper steps a run of a layer's states with its own replayers: from
// holds the state being stepped, loaded from its key once, and r runs
// each event from a copy of it.
type stepper struct {
	x       *explorer
	from, r *replayer
	out     []candidates // per shard
	buf     []byte
	changed [numPolicies]bool // the lanes r changed from from's
	// noticed is per lane.
	noticed [numPolicies][numClasses]notice
}

// candidates are the children one stepper found for one shard, in the
// order it found them: each child's key, hash and link.
type candidates struct {
	keys   []byte
	ends   []uint32
	hashes []uint32
	links  []uint64
}

func (c *candidates) reset() {
	c.keys, c.ends, c.hashes, c.links = c.keys[:0], c.ends[:0], c.hashes[:0], c.links[:0]
}

func (c *candidates) add(key []byte, h uint32, link uint64) {
	c.keys = append(c.keys, key...)
	c.ends = append(c.ends, uint32(len(c.keys)))
	c.hashes = append(c.hashes, h)
	c.links = append(c.links, link)
}

func (c *candidates) bytes() int {
	return cap(c.keys) + 4*cap(c.ends) + 4*cap(c.hashes) + 8*cap(c.links)
}

// newExplorer sets up the exploration of s, running the lanes groups
// gives its program.
func newExplorer(ctx context.Context, s *Scenario, opt ExploreOptions, groups func(*program) laneGroups) *explorer {
	if opt.Budget <= 0 {
		opt.Budget = DefaultBudget
	}
	opt = withDefaults(opt)
	es := exploredScenario(s, explored(s, opt.Writes))
	workers := min(max(opt.Workers, 1), maxWorkers)
	x := &explorer{ctx: ctx, opt: opt, events: es.Events, growth: 2}
	for range workers {
		from, r := newReplayer(es), newReplayer(es)
		if x.groups.run == nil {
			x.groups = groups(r.pr)
		}
		for _, rp := range []*replayer{from, r} {
			rp.quiet = true
			rp.runLanes(x.groups.run)
		}
		x.steppers = append(x.steppers, &stepper{x: x, from: from, r: r, out: make([]candidates, workers)})
	}
	pr := x.steppers[0].r.pr
	x.n, x.codec, x.order = len(pr.events), newCodec(pr, len(x.groups.run)), orderOf(pr, opt)
	return x
}

// run explores every layer, or until it must stop.
func (x *explorer) run() {
	r := x.steppers[0].r
	root := x.codec.encode(nil, r, make([]byte, x.codec.placedLen), -1, 0)
	first := newShard(1, nil)
	first.insert(root, hashKey(root), 0, &number{lo: 1})
	x.cur = newLayer([]*shard{first}, x.n)
	x.links = []links{x.cur.links}
	x.states = 1
	x.progress()
	for d := 0; d < x.n; d++ {
		next, ok := x.step(d)
		if !ok {
			return
		}
		x.spare = x.cur.shards // layer d is no longer needed: its arrays fill layer d+2
		x.cur = next
	}
	x.final = x.tallyLast(x.cur)
}

// step builds layer d+1 from x.cur, layer d. It returns false when the
// exploration stopped.
func (x *explorer) step(d int) (*layer, bool) {
	cur, w := x.cur, len(x.steppers)
	if cur.len() < 2*chunkStates/w {
		w = 1 // a small layer is not worth the joins
	}
	// Guess the next layer's size from how the last one grew, within the budget.
	expect := int(min(float64(cur.len())*x.growth, float64(x.opt.Budget-x.states))) / w
	shards := make([]*shard, w)
	for s := range shards {
		var spare *shard
		if s < len(x.spare) {
			spare = x.spare[s]
		}
		shards[s] = newShard(expect, spare)
	}
	x.spare = nil
	for _, st := range x.steppers {
		st.clearNotices()
	}
	before := x.states
	for from := 0; from < cur.len(); from += chunkStates {
		if x.stop() {
			return nil, false
		}
		to := min(from+chunkStates, cur.len())
		x.parallel(w, func(i int) {
			a, b := from+(to-from)*i/w, from+(to-from)*(i+1)/w
			x.steppers[i].stepAll(cur, a, b, w)
		})
		x.parallel(w, func(s int) {
			for _, st := range x.steppers[:w] {
				shards[s].merge(&st.out[s], cur)
			}
		})
		x.states = before
		for _, sh := range shards {
			x.states += sh.len()
			if sh.full {
				x.stopped = StopBudget // 4 GiB of keys in one shard of a layer
				return nil, false
			}
		}
		x.hold(cur, shards)
		x.progress()
		if x.states > x.opt.Budget {
			next := x.truncate(shards, x.opt.Budget-before, d+1)
			x.links = append(x.links, next.links)
			if d+1 == x.n {
				x.final = x.tallyLast(next)
			}
			x.stopped = StopBudget
			return nil, false
		}
	}
	next := newLayer(shards, x.n)
	x.links = append(x.links, next.links)
	x.noticeLayer(d+1, w, noLink)
	x.growth = min(max(float64(next.len())/float64(cur.len()), 1), 8)
	return next, true
}

// parallel runs f(0), ..., f(w-1), through RunAll when there is one.
func (x *explorer) parallel(w int, f func(i int)) {
	if w == 1 || x.opt.RunAll == nil {
		for i := range w {
			f(i)
		}
		return
	}
	tasks := make([]func(), w)
	for i := range tasks {
		tasks[i] = func() { f(i) }
	}
	x.opt.RunAll(tasks)
}

// truncate keeps the first keep states of a layer cut short by the budget,
// in rank order, and the counterexamples of transitions up to the first
// state it drops (the sequential search would have met them before it
// stopped).
func (x *explorer) truncate(shards []*shard, keep, d int) *layer {
	next := newLayer(shards, x.n)
	cutoff := next.links.at(keep)
	next.order = next.order[:keep]
	next.links.truncate(keep)
	x.states = x.opt.Budget
	x.noticeLayer(d, len(shards), cutoff)
	return next
}

// stepAll steps the states of ranks a to b of layer l, into s.out.
func (s *stepper) stepAll(l *layer, a, b, shards int) {
	x := s.x
	for i := range s.out {
		s.out[i].reset()
	}
	for rank := a; rank < b; rank++ {
		key := l.key(rank)
		v := x.codec.violatedOf(key)
		at := x.codec.load(s.from, key)
		for li := range x.codec.lanes {
			s.changed[li] = true
		}
		for e := range x.n {
			if !x.order.ready(key, e) {
				continue
			}
			x.codec.restore(s.r, s.from, &s.changed)
			s.r.step(e)
			cv := v
			for li := range x.codec.lanes {
				ln := &s.r.lanes[li]
				s.changed[li] = ln.touched
				for _, vi := range ln.violations {
					cv |= 1 << (li*bitsPerPolicy + int(bitOf(vi)))
				}
			}
			link := linkOf(rank, e)
			if cv != v {
				s.notice(v, cv, link)
			}
			s.buf = x.codec.encodeFrom(s.buf[:0], s.r, key, e, cv, &at, &s.changed)
			h := hashKey(s.buf)
			s.out[shardOf(h, shards)].add(s.buf, h, link)
		}
	}
}

// shardOf is the shard of a hash, among n.
func shardOf(h uint32, n int) int { return int(uint64(h>>16) * uint64(n) >> 16) }

// violatedOf reads the invariants broken from a key.
func (c *codec) violatedOf(key []byte) violated {
	b := key[c.placedLen:]
	var v uint64
	for i := range c.violatedLen {
		v |= uint64(b[i]) << (8 * i)
	}
	return violated(v)
}

func (s *stepper) clearNotices() {
	for p := range s.noticed {
		for c := range s.noticed[p] {
			s.noticed[p][c] = notice{link: noLink}
		}
	}
}

// notice keeps, per lane and class not found yet, the least transition
// of this layer that first reaches the class.
func (s *stepper) notice(v, cv violated, link uint64) {
	for li := range s.x.codec.lanes {
		was, now := v.byLane(li), cv.byLane(li)
		if was == now {
			continue
		}
		for c := range s.noticed[li] {
			if was&classMask[c] != 0 || now&classMask[c] == 0 || s.x.best[li][c].step > 0 {
				continue
			}
			if n := &s.noticed[li][c]; link < n.link {
				*n = notice{link: link, inv: firstOf(now &^ was & classMask[c])}
			}
		}
	}
}

// noticeLayer turns the least transitions of layer d (at most cutoff)
// that first reach a class into counterexamples: they are the earliest
// there are, since no earlier layer reached the class.
func (x *explorer) noticeLayer(d, w int, cutoff uint64) {
	for li := range x.codec.lanes {
		for c := range x.best[li] {
			if x.best[li][c].step > 0 {
				continue
			}
			least := notice{link: noLink}
			for _, st := range x.steppers[:w] {
				if n := st.noticed[li][c]; n.link < least.link {
					least = n
				}
			}
			if least.link != noLink && least.link <= cutoff {
				x.best[li][c] = finding{step: d, prefix: x.prefix(d-1, least.link), inv: least.inv}
			}
		}
	}
}

// prefix rebuilds the ordering that ends with link, from a state of layer d.
func (x *explorer) prefix(d int, link uint64) []int32 {
	p := make([]int32, d+1)
	for ; d >= 0; d-- {
		p[d] = int32(linkEvent(link))
		link = x.links[d].at(linkRank(link))
	}
	return p
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

// stop looks at the context, and reports whether the exploration must stop.
func (x *explorer) stop() bool {
	if err := x.ctx.Err(); errors.Is(err, context.DeadlineExceeded) {
		x.stopped = StopDeadline
	} else if err != nil {
		x.stopped = StopCanceled
	}
	return x.stopped != ""
}

func (x *explorer) progress() {
	if x.opt.Progress != nil {
		x.opt.Progress(x.states)
	}
}

// hold notes the bytes held while layer cur is stepped into shards.
func (x *explorer) hold(cur *layer, shards []*shard) {
	n := cur.bytes()
	for _, sh := range shards {
		n += sh.bytes()
	}
	for _, st := range x.steppers {
		for i := range st.out {
			n += st.out[i].bytes()
		}
	}
	for _, l := range x.links {
		n += l.bytes()
	}
	x.held = max(x.held, n)
}

// finalTally counts the orderings that reach each state of the last layer,
// by what they broke, per lane.
type finalTally struct {
	all       number
	any       [numPolicies]number
	violating [numPolicies][numInvariants]number
	byClass   [numPolicies][numClasses]number
}

// tallyLast adds up the last layer.
func (x *explorer) tallyLast(l *layer) *finalTally {
	t := &finalTally{}
	for rank := range l.len() {
		sh, i := l.at(rank)
		var c number
		sh.countOf(i, &c)
		t.all.add(&c)
		v := x.codec.violatedOf(sh.key(i))
		if v == 0 {
			continue
		}
		for li := range x.codec.lanes {
			b := v.byLane(li)
			if b == 0 {
				continue
			}
			t.any[li].add(&c)
			for k, m := range invMask {
				if b&m != 0 {
					t.violating[li][k].add(&c)
				}
			}
			for cl, m := range classMask {
				if b&m != 0 {
					t.byClass[li][cl].add(&c)
					break
				}
			}
		}
	}
	return t
}
