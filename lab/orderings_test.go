package lab

import (
	"cmp"
	"slices"
	"testing"
)

func TestOrderingsMatchExplore(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"paused-worker", "old-token-first", "duplicate-retry", "racy-receiver"} {
		for _, opt := range []ExploreOptions{{}, {Writes: WritesAtomic, Expiry: ExpiryProgram}} {
			t.Run(name+"/"+cmp.Or(string(opt.Writes), "split"), func(t *testing.T) { testOrderings(t, name, opt) })
		}
	}
}

func testOrderings(t *testing.T, name string, opt ExploreOptions) {
	s := builtin(t, name)
	var all [][]int
	for o := range Orderings(s, opt) {
		all = append(all, slices.Clone(o))
	}
	if n := len(ExploredEvents(s, opt)); len(all[0]) != n {
		t.Fatalf("Orderings(%s) has %d events, ExploredEvents %d", name, len(all[0]), n)
	}
	x := Explore(t.Context(), s, opt)
	if got, want := len(all), x.Orderings.Int64(); int64(got) != want {
		t.Fatalf("Orderings(%s) yielded %d orderings, Explore counted %d", name, got, want)
	}
	for i := 1; i < len(all); i++ {
		if slices.Compare(all[i-1], all[i]) >= 0 {
			t.Fatalf("Orderings(%s): ordering %d %v does not follow %v", name, i+1, all[i], all[i-1])
		}
	}
	for _, pe := range x.Policies {
		if c := pe.Counterexample; c != nil && !slices.ContainsFunc(all, func(o []int) bool { return slices.Equal(o, c.Order) }) {
			t.Errorf("Orderings(%s) misses the counterexample %v of %s", name, c.Order, pe.Policy)
		}
	}
}

func TestOrderingsStopsEarly(t *testing.T) {
	t.Parallel()
	n := 0
	for range Orderings(builtin(t, "paused-worker"), ExploreOptions{}) {
		n++
		if n == 3 {
			break
		}
	}
	if n != 3 {
		t.Fatalf("breaking after 3 orderings ran %d", n)
	}
}

func TestRandomOrderingIsAnOrdering(t *testing.T) {
	t.Parallel()
	s := builtin(t, "old-token-first")
	all := map[string]bool{}
	for o := range Orderings(s, ExploreOptions{}) {
		all[fmtOrder(o)] = true
	}
	seen := map[string]bool{}
	state := uint64(1)
	pick := func(n int) int { // a fixed linear congruential sequence
		state = state*6364136223846793005 + 1442695040888963407
		return int(state>>33) % n
	}
	for range 200 {
		o := RandomOrdering(s, ExploreOptions{}, pick)
		if !all[fmtOrder(o)] {
			t.Fatalf("RandomOrdering gave %v, not one of the orderings Explore follows", o)
		}
		seen[fmtOrder(o)] = true
	}
	if len(seen) < 20 {
		t.Errorf("200 random orderings gave only %d distinct ones", len(seen))
	}
}

func fmtOrder(o []int) string {
	b := make([]byte, 0, len(o)*3)
	for _, n := range o {
		b = append(b, byte('a'+n))
	}
	return string(b)
}
