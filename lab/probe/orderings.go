package probe

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"fencelab/lab"
)

// MaxOrderings is the most orderings --orderings all plays; beyond it the
// probe asks for a sample (--orderings N) instead of running for hours.
const MaxOrderings = 100_000

// ErrTooManyOrderings: --orderings all was asked of a scenario with more
// than MaxOrderings orderings.
var ErrTooManyOrderings = fmt.Errorf("this scenario has more than %d orderings: sample them with --orderings N", MaxOrderings)

// OrderingsOptions choose the orderings: all of them (N == 0), or N drawn
// with Seed.
type OrderingsOptions struct {
	N    int
	Seed int64
}

// Orderings plays s in every ordering the explorer follows by default
// (each write split into a send and a deliver that can come later, and
// leases that expire when the clock says), or in N of them drawn at
// random, with a reset before each. It stops at ctx's end and says so.
func (p *Prober) Orderings(ctx context.Context, s *lab.Scenario, opt OrderingsOptions) (*Result, error) {
	prepared, changes := Prepare(s, p.Remember)
	x := &lab.Exploration{Events: lab.ExploredEvents(prepared, lab.ExploreOptions{})}
	orders, err := chooseOrders(prepared, opt)
	if err != nil {
		return nil, err
	}
	res := p.result(s.Title, "orderings", changes)
	or := &OrderingsResult{Requested: "all"}
	if opt.N > 0 {
		or.Requested, or.Seed = strconv.Itoa(opt.N), &opt.Seed
	}
	res.Orderings = or
	for i, order := range orders {
		if ctx.Err() != nil {
			or.Stopped = true
			break
		}
		if p.Progress != nil {
			p.Progress(i, len(orders))
		}
		pl, err := p.playOrder(ctx, x, prepared, order)
		if err != nil && ctx.Err() != nil {
			or.Stopped = true // interrupted mid-ordering: report the ones played
			break
		}
		if err != nil {
			return nil, err
		}
		or.Tried++
		switch pl.verdict {
		case NotTestable:
			or.NotTested++
			res.Verdict, res.Divergence = NotTestable, pl.divergence
		case Disagree:
			or.Disagreed++
			if or.FirstOrder == nil {
				or.FirstOrder, or.FirstSteps = order, pl.steps
				res.Verdict = Disagree
				res.Divergence = fmt.Sprintf("ordering %d of %d (events %s): %s", i+1, len(orders), orderWords(order), pl.divergence)
			}
		}
		if pl.verdict == NotTestable {
			break // every ordering needs the same missing endpoint
		}
	}
	if p.Progress != nil {
		p.Progress(or.Tried, len(orders))
	}
	return res, nil
}

// playOrder plays one ordering: sends split from writes get the ids
// Exploration.Reorder gives them, "write-N".
func (p *Prober) playOrder(ctx context.Context, x *lab.Exploration, s *lab.Scenario, order []int) (played, error) {
	s, err := x.Reorder(s, order)
	if err != nil {
		return played{}, err
	}
	return p.play(ctx, s)
}

// chooseOrders lists every ordering, or N distinct ones drawn with the
// seed (all of them when there are no more than N).
func chooseOrders(s *lab.Scenario, opt OrderingsOptions) ([][]int, error) {
	limit := MaxOrderings
	if opt.N > 0 {
		limit = opt.N
	}
	var all [][]int
	for o := range lab.Orderings(s, lab.ExploreOptions{}) {
		if len(all) == limit {
			all = append(all, nil) // one more than the limit: there are more
			break
		}
		all = append(all, slices.Clone(o))
	}
	switch {
	case len(all) <= limit:
		return all, nil
	case opt.N == 0:
		return nil, ErrTooManyOrderings
	}
	rng := rand.New(rand.NewPCG(uint64(opt.Seed), uint64(opt.Seed)>>32|1))
	pick := func(n int) int { return rng.IntN(n) }
	seen := map[string]bool{}
	var out [][]int
	for tries := 0; len(out) < opt.N && tries < 20*opt.N; tries++ {
		o := lab.RandomOrdering(s, lab.ExploreOptions{}, pick)
		if key := orderWords(o); !seen[key] {
			seen[key] = true
			out = append(out, o)
		}
	}
	return out, nil
}

// orderWords shows an ordering as its events' 1-based indices.
func orderWords(order []int) string {
	parts := make([]string, len(order))
	for i, n := range order {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, " ")
}
