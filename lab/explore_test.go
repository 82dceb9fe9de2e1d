package lab

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	mathbig "math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"fencelab/scenarios"
)

// builtin parses a built-in scenario by name.
func builtin(t testing.TB, name string) *Scenario {
	t.Helper()
	src, err := fs.ReadFile(scenarios.FS, name+".json")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Parse(bytes.NewReader(src))
	if err != nil {
		t.Fatalf("Parse(%s): %v", name, err)
	}
	return s
}

// switches are the four ways to explore: model 2's defaults first.
var switches = []ExploreOptions{
	{},
	{Writes: WritesAtomic},
	{Expiry: ExpiryProgram},
	{Writes: WritesAtomic, Expiry: ExpiryProgram},
}

func describeOptions(o ExploreOptions) string {
	return fmt.Sprintf("writes=%s expiry=%s", cmp.Or(o.Writes, WritesSplit), cmp.Or(o.Expiry, ExpiryFree))
}

// TestExploreMatchesNaive checks the explorer, which merges states and
// counts over them, against replaying every ordering from scratch, on 200
// random small scenarios of model 2 and 200 of model 3 under each of the
// four switches (40 each with -short, too few to check that every class
// and policy comes up).
func TestExploreMatchesNaive(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("compares thousands of explorations with the naive enumerator; runs without -short")
	}
	for _, opt := range switches {
		t.Run(describeOptions(opt), func(t *testing.T) {
			testMatchesNaive(t, opt)
		})
	}
}

func testMatchesNaive(t *testing.T, opt ExploreOptions) {
	rng := rand.New(rand.NewPCG(6, 6))
	violating := map[Policy]int64{}
	classes := map[Class]int64{}
	racyDiffers, casDiffers, lost := 0, 0, int64(0)
	n := 200
	if testing.Short() {
		n = 40
	}
	// As many scenarios again with model 3's additions, from a stream of
	// their own so that the model-2 ones stay those they always were.
	rng3 := rand.New(rand.NewPCG(3, 3))
	for i := 0; i < 2*n; {
		gen := genSmall(rng)
		if i >= n {
			gen = genSmall3(rng3)
		}
		s, err := reparse(gen)
		if err != nil {
			t.Fatalf("generated scenario %d does not parse: %v", i, err)
		}
		x := Explore(context.Background(), s, opt)
		if x.Orderings.Cmp(mathbig.NewInt(3000)) > 0 {
			continue // keep the naive side quick
		}
		i++
		for _, d := range exploreNaively(s, opt.Writes, opt.Expiry).compare(x) {
			b, _ := json.Marshal(s.Events)
			t.Fatalf("Explore(%s): %s", b, d)
		}
		for _, pe := range x.Policies {
			violating[pe.Policy] += pe.AnyViolating.Int64()
			for c, n := range pe.ByClass {
				classes[c] += n.Int64()
			}
			if pe.Counterexample != nil && i%10 == 0 {
				checkCounterexample(t, s, x, pe.Policy)
			}
		}
		if x.Of(FencedRacy).AnyViolating.Cmp(x.Of(Fenced).AnyViolating) != 0 {
			racyDiffers++
		}
		if x.Of(CAS).AnyViolating.Cmp(x.Of(Unfenced).AnyViolating) != 0 {
			casDiffers++
		}
		for _, pe := range x.Policies {
			lost += pe.Violating[LostUpdate].Int64()
		}
	}
	if testing.Short() {
		return
	}
	if lost == 0 || casDiffers == 0 {
		t.Errorf("lost-update counted %d times, cas differs from unfenced %d times: the model-3 scenarios test too little", lost, casDiffers)
	}
	for _, p := range policies {
		if violating[p] == 0 && p != Authoritative {
			t.Errorf("no generated ordering violates anything under %s: the test compares too little", p)
		}
	}
	for _, c := range Classes() {
		if classes[c] == 0 {
			t.Errorf("no generated ordering's worst class is %s: the test compares too little", c)
		}
	}
	if racyDiffers == 0 {
		t.Errorf("fenced-racy never differs from fenced: the generated commits test nothing")
	}
}

// TestExploreSpecTable is the contract's table of what model 2 shows on
// the built-ins: orderings, and per policy the worst class and the number
// of orderings that reach it.
func TestExploreSpecTable(t *testing.T) {
	t.Parallel()
	type worst struct {
		class Class
		n     int64
	}
	none := worst{}
	fencedFamily := func(fenced, register worst) map[Policy]worst {
		return map[Policy]worst{Fenced: fenced, FencedStrict: fenced, FencedIdempotent: fenced, FencedRacy: fenced, FencedRegister: register}
	}
	tests := []struct {
		name      string
		orderings int64
		worst     map[Policy]worst
	}{
		{"paused-worker", 720, merge(fencedFamily(worst{Deposed, 50}, worst{Overrun, 300}),
			map[Policy]worst{Unfenced: {Corrupting, 70}, ClientCheck: {Corrupting, 1}, Authoritative: none})},
		{"old-token-first", 420, merge(fencedFamily(worst{Deposed, 30}, worst{Overrun, 159}),
			map[Policy]worst{Unfenced: {Corrupting, 35}, ClientCheck: {Corrupting, 1}, Authoritative: none})},
		{"issuer-failover", 420, map[Policy]worst{FencedStrict: {Refusing, 35}, Authoritative: {Deposed, 65},
			Fenced: {Deposed, 65}, FencedRegister: {Deposed, 65}, ClientCheck: {Deposed, 3}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := builtin(t, tt.name)
			x := Explore(context.Background(), s, ExploreOptions{})
			if !x.Complete || x.Orderings.Int64() != tt.orderings || x.Writes != WritesSplit || x.Expiry != ExpiryFree {
				t.Fatalf("Explore(%s) = %v orderings, complete %v, writes %q, expiry %q; want %d, complete, split, free",
					tt.name, x.Orderings, x.Complete, x.Writes, x.Expiry, tt.orderings)
			}
			for p, want := range tt.worst {
				pe := x.Of(p)
				got := worst{}
				if pe.Worst != nil {
					got = worst{*pe.Worst, pe.ByClass[*pe.Worst].Int64()}
				}
				if got != want {
					t.Errorf("Explore(%s) under %s: worst %q in %d orderings, want %q in %d", tt.name, p, got.class, got.n, want.class, want.n)
				}
				if (pe.Counterexample == nil) != (want == none) {
					t.Errorf("Explore(%s) under %s: counterexample %s, want one: %v", tt.name, p, describeCE(pe.Counterexample), want != none)
				}
				if pe.Counterexample != nil {
					checkCounterexample(t, s, x, p)
				}
			}
		})
	}
}

func merge[K comparable, V any](a, b map[K]V) map[K]V {
	for k, v := range b {
		a[k] = v
	}
	return a
}

// TestExploreSplitEvents checks the explored events of paused-worker: each
// write a send "#N" with the write's fields, then its deliver.
func TestExploreSplitEvents(t *testing.T) {
	t.Parallel()
	s := builtin(t, "paused-worker")
	x := Explore(context.Background(), s, ExploreOptions{})
	var got []string
	for _, e := range x.Events {
		got = append(got, strings.TrimSpace(e.Actor+" "+string(e.Kind)+" "+e.ID+e.Request+" "+deref(e.Value)))
	}
	want := []string{"A acquire", "A read", "A pause", "A expire", "B acquire", "B send #6 new-result", "deliver #6",
		"A resume", "A send #8 old-result", "deliver #8"}
	if !slices.Equal(got, want) {
		t.Errorf("Explore(paused-worker).Events = %q, want %q", got, want)
	}
	if x.Events[5].Note != s.Events[5].Note || x.Events[5].Resource != "result" {
		t.Errorf("Explore(paused-worker) send #6 = %+v, want the write's note and resource", x.Events[5])
	}
	atomic := Explore(context.Background(), s, ExploreOptions{Writes: WritesAtomic, Expiry: ExpiryProgram})
	if len(atomic.Events) != len(s.Events) || atomic.Orderings.Int64() != 28 {
		t.Errorf("Explore(paused-worker, atomic, program) = %d events, %v orderings; want %d, 28", len(atomic.Events), atomic.Orderings, len(s.Events))
	}
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// TestExploreModel1 keeps model 1's rules behind the two switches: over the
// 21 orderings of old-token-first, fenced lets both a superseded and an
// unowned write through, fenced-register stops every superseded write but
// not every unowned one, and authoritative and client-check are always safe.
func TestExploreModel1(t *testing.T) {
	t.Parallel()
	s := builtin(t, "old-token-first")
	x := Explore(context.Background(), s, ExploreOptions{Writes: WritesAtomic, Expiry: ExpiryProgram})
	if !x.Complete || x.Orderings.Int64() != 21 {
		t.Fatalf("Explore(old-token-first) = %v orderings, complete %v; want 21, complete", x.Orderings, x.Complete)
	}
	tests := []struct {
		policy Policy
		inv    Invariant
		some   bool
	}{
		{Fenced, SupersededWrite, true},
		{Fenced, UnownedWrite, true},
		{FencedRegister, SupersededWrite, false},
		{FencedRegister, UnownedWrite, true},
	}
	for _, tt := range tests {
		if got := x.Of(tt.policy).Violating[tt.inv].Sign() > 0; got != tt.some {
			t.Errorf("Explore(old-token-first) under %s: %v orderings with %s, want some: %v", tt.policy, x.Of(tt.policy).Violating[tt.inv], tt.inv, tt.some)
		}
	}
	for _, p := range []Policy{Authoritative, ClientCheck} {
		if pe := x.Of(p); pe.AnyViolating.Sign() != 0 || pe.Counterexample != nil || pe.Worst != nil {
			t.Errorf("Explore(old-token-first) under %s: %v violating, counterexample %s; want safe in all 21", p, pe.AnyViolating, describeCE(pe.Counterexample))
		}
	}
	checkCounterexample(t, s, x, Fenced)
}

// checkCounterexample turns a policy's counterexample into a scenario,
// checks that it is a valid scenario file, replays it and checks that it
// reaches the counterexample's class first at its step, with its invariant,
// and that the class is the policy's worst.
func checkCounterexample(t *testing.T, s *Scenario, x *Exploration, p Policy) {
	t.Helper()
	pe := x.Of(p)
	c := pe.Counterexample
	if c == nil {
		t.Fatalf("Explore: no counterexample under %s", p)
	}
	if pe.Worst == nil || *pe.Worst != c.Class {
		t.Errorf("Explore under %s: counterexample of class %s, worst %v", p, c.Class, pe.Worst)
	}
	r, err := x.Reorder(s, c.Order)
	if err != nil {
		t.Fatalf("Reorder(%v): %v", c.Order, err)
	}
	src, _ := json.Marshal(r)
	if r, err = Parse(bytes.NewReader(src)); err != nil {
		t.Fatalf("Reorder(%v) is not a valid scenario: %v\n%s", c.Order, err, src)
	}
	for _, v := range Replay(r).Summary[p].Violations {
		if v.Class == c.Class {
			if v.Kind != c.Invariant || v.Step != c.Step {
				t.Errorf("Replay(Reorder(%v)) under %s: first %s violation %s at step %d, want %s at step %d", c.Order, p, c.Class, v.Kind, v.Step, c.Invariant, c.Step)
			}
			return
		}
	}
	t.Errorf("Replay(Reorder(%v)) under %s: no %s violation, want %s at step %d", c.Order, p, c.Class, c.Invariant, c.Step)
}

func TestExplorePausedWorker(t *testing.T) {
	t.Parallel()
	s := builtin(t, "paused-worker")
	for _, opt := range switches {
		x := Explore(context.Background(), s, opt)
		if d := exploreNaively(s, opt.Writes, opt.Expiry).compare(x); d != nil {
			t.Errorf("Explore(paused-worker, %s): %v", describeOptions(opt), d)
		}
		checkCounterexample(t, s, x, Unfenced)
	}
}

func TestExploreDeterministic(t *testing.T) {
	t.Parallel()
	s := builtin(t, "racy-receiver")
	a, _ := json.Marshal(Explore(context.Background(), s, ExploreOptions{}))
	b, _ := json.Marshal(Explore(context.Background(), s, ExploreOptions{}))
	if !bytes.Equal(a, b) {
		t.Errorf("Explore(racy-receiver) twice:\n%s\n%s", a, b)
	}
}

// TestExploreBudget stops at a budget smaller than the states there are,
// says so, and never counts more than the whole exploration does.
func TestExploreBudget(t *testing.T) {
	t.Parallel()
	s := builtin(t, "racy-receiver")
	full := Explore(context.Background(), s, ExploreOptions{})
	for _, budget := range []int{1, 2, 10, 50, full.States - 1, full.States} {
		x := Explore(context.Background(), s, ExploreOptions{Budget: budget})
		name := fmt.Sprintf("Explore(racy-receiver, budget %d)", budget)
		if want := budget >= full.States; x.Complete != want || x.States > budget || (x.Stopped == StopBudget) == want {
			t.Errorf("%s = complete %v, stopped %q, %d states; want complete %v, at most %d states", name, x.Complete, x.Stopped, x.States, want, budget)
		}
		if x.Orderings.Cmp(full.Orderings) > 0 {
			t.Errorf("%s counts %v orderings, more than all %v", name, x.Orderings, full.Orderings)
		}
		for p, pe := range x.Policies {
			for _, inv := range invariants {
				if pe.Violating[inv].Cmp(full.Policies[p].Violating[inv]) > 0 {
					t.Errorf("%s under %s: %v orderings with %s, more than the full %v", name, pe.Policy, pe.Violating[inv], inv, full.Policies[p].Violating[inv])
				}
			}
			for _, c := range Classes() {
				if pe.ByClass[c].Cmp(full.Policies[p].ByClass[c]) > 0 {
					t.Errorf("%s under %s: %v orderings at worst %s, more than the full %v", name, pe.Policy, pe.ByClass[c], c, full.Policies[p].ByClass[c])
				}
			}
			if pe.Counterexample != nil {
				checkCounterexample(t, s, x, pe.Policy)
			}
		}
	}
}

// fourWorkers is the benchmark's scenario: four workers each acquire,
// send and have their request delivered, 369,600 orderings of 12 events.
func fourWorkers(t testing.TB) *Scenario {
	var lines []string
	for _, w := range []string{"A", "B", "C", "D"} {
		lines = append(lines, w+" acquire", w+" send "+w+"1 "+w+"-result", "deliver "+w+"1")
	}
	return ev(t, job41, lines...)
}

// threeExpiring is a benchmark's scenario: three workers that each
// acquire, check their lease, have it expire and write, 12 events; the
// explorer splits the writes, 15 events and 48,432,384 orderings.
func threeExpiring(t testing.TB) *Scenario {
	var lines []string
	for _, w := range []string{"A", "B", "C"} {
		lines = append(lines, w+" acquire", w+" check", w+" expire", w+" write "+w+"-result")
	}
	return ev(t, job41, lines...)
}

// crowd is a scenario with tens of millions of states: eight workers that
// each take the lease, write, let it expire and write again.
func crowd(t testing.TB) *Scenario {
	var lines []string
	for w := range 8 {
		a := fmt.Sprintf("W%d", w)
		lines = append(lines, a+" acquire", a+" write x", a+" expire", a+" send "+a+" y", "deliver "+a)
	}
	return ev(t, job41, lines...)
}

func TestExploreHugeStopsAtBudget(t *testing.T) {
	t.Parallel()
	const budget = 20_000
	x := Explore(context.Background(), crowd(t), ExploreOptions{Budget: budget})
	if x.Complete || x.Stopped != StopBudget || x.States != budget {
		t.Fatalf("Explore(crowd, budget %d) = complete %v, stopped %q, %d states; want incomplete at the budget", budget, x.Complete, x.Stopped, x.States)
	}
	if perState := x.Bytes / x.States; perState > 200 {
		t.Errorf("Explore(crowd) holds %d bytes a state, want at most 200", perState)
	}
}

func TestExploreCanceled(t *testing.T) {
	t.Parallel()
	s := fourWorkers(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if x := Explore(ctx, s, ExploreOptions{}); x.Complete || x.Stopped != StopCanceled || x.Orderings.Sign() != 0 {
		t.Errorf("Explore(canceled) = complete %v, stopped %q, %v orderings; want canceled, none", x.Complete, x.Stopped, x.Orderings)
	}
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	progress := func(states int) {
		if calls++; states > 100 {
			cancel()
		}
	}
	full := Explore(context.Background(), s, ExploreOptions{})
	x := Explore(ctx, s, ExploreOptions{Progress: progress})
	if x.Complete || x.Stopped != StopCanceled || x.States >= full.States || calls < 2 {
		t.Errorf("Explore(canceled in Progress) = complete %v, stopped %q, %d of %d states, %d calls; want canceled early",
			x.Complete, x.Stopped, x.States, full.States, calls)
	}
}

func TestExploreDeadline(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancel()
	if x := Explore(ctx, fourWorkers(t), ExploreOptions{}); x.Complete || x.Stopped != StopDeadline {
		t.Errorf("Explore(past deadline) = complete %v, stopped %q; want %q", x.Complete, x.Stopped, StopDeadline)
	}
}

// TestExploreBeyondUint64 counts C(80,40), about 1.1e23 orderings, exactly
// (writes atomic, so that B's write is one event).
func TestExploreBeyondUint64(t *testing.T) {
	t.Parallel()
	lines := []string{"A acquire"}
	for range 39 {
		lines = append(lines, "A read")
	}
	for range 39 {
		lines = append(lines, "B read")
	}
	lines = append(lines, "B write v")
	x := Explore(context.Background(), ev(t, "", lines...), ExploreOptions{Writes: WritesAtomic})
	want := new(mathbig.Int).Binomial(80, 40)
	pe := x.Of(Unfenced)
	if x.Orderings.Cmp(want) != 0 || pe.Violating[UnownedWrite].Cmp(want) != 0 || x.Of(Fenced).AnyViolating.Sign() != 0 {
		t.Errorf("Explore(A 40 events, B 40) = %v orderings, %v unowned under unfenced, %v violating under fenced; want %v, %v, 0",
			x.Orderings, pe.Violating[UnownedWrite], x.Of(Fenced).AnyViolating, want, want)
	}
	// B's write is an overrun only when all of B runs before A's acquire.
	deposed := new(mathbig.Int).Sub(want, mathbig.NewInt(1))
	if pe.ByClass[Deposed].Cmp(deposed) != 0 || pe.ByClass[Overrun].Int64() != 1 {
		t.Errorf("Explore(A 40 events, B 40) under unfenced: by class %v, want deposed %v, overrun 1", pe.ByClass, deposed)
	}
	order := []int{1}
	for i := range 79 {
		order = append(order, (i+39)%79+2)
	}
	if got, want := describeCE(pe.Counterexample), describeCE(&Counterexample{Order: order, Step: 41, Invariant: UnownedWrite, Class: Deposed}); got != want {
		t.Errorf("Explore(A 40 events, B 40) counterexample under unfenced = %s, want %s", got, want)
	}
}

func TestExploreNoEvents(t *testing.T) {
	t.Parallel()
	x := Explore(context.Background(), ev(t, ""), ExploreOptions{})
	if !x.Complete || x.Orderings.Int64() != 1 || x.States != 1 {
		t.Errorf("Explore(no events) = %v orderings, %d states, complete %v; want 1, 1, complete", x.Orderings, x.States, x.Complete)
	}
}

func TestReorder(t *testing.T) {
	t.Parallel()
	s := builtin(t, "old-token-first")
	for _, order := range [][]int{{1, 2, 3}, {1, 2, 3, 4, 5, 6, 6}, {0, 1, 2, 3, 4, 5, 6}, {1, 2, 3, 4, 5, 6, 8}} {
		if _, err := Reorder(s, order); err == nil {
			t.Errorf("Reorder(old-token-first, %v) = nil error, want one", order)
		}
	}
	order := []int{4, 7, 1, 2, 3, 5, 6}
	r, err := Reorder(s, order)
	if err != nil {
		t.Fatalf("Reorder(old-token-first, %v): %v", order, err)
	}
	for i, n := range order {
		if got, want := DescribeEvent(r.Events[i])+" "+r.Events[i].Actor, DescribeEvent(s.Events[n-1])+" "+s.Events[n-1].Actor; got != want {
			t.Errorf("Reorder(old-token-first, %v) event %d = %s, want %s", order, i+1, got, want)
		}
	}
	*r.Events[6].Value = "changed"
	if *s.Events[5].Value != "old-result" {
		t.Errorf("changing Reorder's copy changed the scenario: %q", *s.Events[5].Value)
	}
}

// TestExplorationReorderRenames turns an ordering with split writes into a
// valid scenario: "#N" becomes write-N, or write-N-2 when a send of the
// file already has the id write-N, in the send and in its deliver.
func TestExplorationReorderRenames(t *testing.T) {
	t.Parallel()
	s := ev(t, job41, "A acquire", "A send write-3 first", "A write second", "deliver write-3")
	x := Explore(context.Background(), s, ExploreOptions{})
	if got := len(x.Events); got != 5 || x.Events[2].ID != "#3" || x.Events[3].Request != "#3" {
		t.Fatalf("Explore: events %+v, want send #3 and deliver #3 at 3 and 4", x.Events)
	}
	r, err := x.Reorder(s, []int{1, 2, 3, 5, 4})
	if err != nil {
		t.Fatalf("Reorder: %v", err)
	}
	var got []string
	for _, e := range r.Events {
		got = append(got, strings.TrimSpace(string(e.Kind)+" "+e.ID+e.Request))
	}
	want := []string{"acquire", "send write-3", "send write-3-2", "deliver write-3", "deliver write-3-2"}
	if !slices.Equal(got, want) {
		t.Errorf("Reorder(1 2 3 5 4) = %q, want %q", got, want)
	}
	src, _ := json.Marshal(r)
	if _, err := Parse(bytes.NewReader(src)); err != nil {
		t.Errorf("Reorder's scenario does not parse: %v", err)
	}
	if x.Events[2].ID != "#3" {
		t.Errorf("Reorder changed the exploration's events: %+v", x.Events[2])
	}
	for _, order := range [][]int{{1, 2, 3, 4}, {1, 2, 3, 4, 4}, {0, 1, 2, 3, 4}} {
		if _, err := x.Reorder(s, order); err == nil {
			t.Errorf("Reorder(%v) = nil error, want one", order)
		}
	}
}

// TestExploreWorkers finds the same exploration, byte for byte, whatever
// the number of workers and however they run, also when the budget cuts a
// layer short.
func TestExploreWorkers(t *testing.T) {
	t.Parallel()
	workers := []int{2, 3, 8}
	if testing.Short() {
		workers = []int{3} // more workers than some layers have states
	}
	for _, c := range []struct {
		name string
		s    *Scenario
		opt  ExploreOptions
	}{
		{"racy-receiver", builtin(t, "racy-receiver"), ExploreOptions{}},
		{"four workers", fourWorkers(t), ExploreOptions{}},
		{"three expiring, model 1", threeExpiring(t), ExploreOptions{Writes: WritesAtomic, Expiry: ExpiryProgram}},
		{"crowd, budget", crowd(t), ExploreOptions{Budget: 12_345}},
	} {
		one, _ := json.Marshal(Explore(context.Background(), c.s, c.opt))
		for _, w := range workers {
			for _, run := range []func([]func()){nil, runAll} {
				opt := c.opt
				opt.Workers, opt.RunAll = w, run
				x := Explore(context.Background(), c.s, opt)
				x.Bytes = 0
				got, _ := json.Marshal(x)
				var want map[string]any
				_ = json.Unmarshal(one, &want)
				want["bytes"] = 0
				wantJSON, _ := json.Marshal(want)
				var gotMap map[string]any
				_ = json.Unmarshal(got, &gotMap)
				gotJSON, _ := json.Marshal(gotMap)
				if !bytes.Equal(gotJSON, wantJSON) {
					t.Errorf("Explore(%s) with %d workers (goroutines: %v) differs from one worker:\n%s\n%s", c.name, w, run != nil, gotJSON, wantJSON)
				}
			}
		}
	}
}

// TestExploreManyEvents explores more than 256 events, past the one-byte
// events of the links behind the layers: one worker reads 280 times, then
// writes without a lease, an overrun at the last step of the one ordering.
func TestExploreManyEvents(t *testing.T) {
	t.Parallel()
	var lines []string
	for range 280 {
		lines = append(lines, "A read")
	}
	lines = append(lines, "A write v")
	x := Explore(context.Background(), ev(t, "", lines...), ExploreOptions{Writes: WritesAtomic})
	pe := x.Of(Unfenced)
	if !x.Complete || x.Orderings.Int64() != 1 || x.States != 282 || pe.Worst == nil || *pe.Worst != Overrun {
		t.Fatalf("Explore(280 reads, a write) = complete %v, %v orderings, %d states, worst %v; want complete, 1, 282, overrun",
			x.Complete, x.Orderings, x.States, pe.Worst)
	}
	want := make([]int, 281)
	for i := range want {
		want[i] = i + 1
	}
	if got, w := describeCE(pe.Counterexample), describeCE(&Counterexample{Order: want, Step: 281, Invariant: UnownedWrite, Class: Overrun}); got != w {
		t.Errorf("Explore(280 reads, a write) counterexample = %s, want %s", got, w)
	}
}
