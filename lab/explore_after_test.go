package lab

import (
	"context"
	"encoding/json"
	mathbig "math/big"
	"math/rand/v2"
	"testing"
)

// TestExploreAfterMatchesNaive checks an exploration over a given partial
// order (ExploreOptions.After, as an import of logs builds it) against
// replaying every linearization of that order, plus a deliver after its
// send, from scratch.
func TestExploreAfterMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 23))
	n := 120
	if testing.Short() {
		n = 30
	}
	for i := 0; i < n; {
		s, err := reparse(genSmall3(rng))
		if err != nil {
			t.Fatalf("generated scenario %d does not parse: %v", i, err)
		}
		after := randomAfter(rng, len(s.Events))
		x := Explore(context.Background(), s, ExploreOptions{After: after})
		if x.Orderings.Cmp(mathbig.NewInt(3000)) > 0 {
			continue
		}
		i++
		if x.Writes != WritesAtomic || x.Expiry != ExpiryProgram {
			t.Fatalf("Explore(After) writes=%s expiry=%s, want atomic and program", x.Writes, x.Expiry)
		}
		nv := naiveWalk(s, s.Events, afterConstraints(s.Events, after))
		for _, d := range nv.compare(x) {
			b, _ := json.Marshal(s.Events)
			t.Fatalf("Explore(%s, After %v): %s", b, after, d)
		}
	}
}

// TestExploreAfterChain checks that a total order leaves one ordering and
// that no constraint at all leaves every permutation of independent events.
func TestExploreAfterChain(t *testing.T) {
	s, err := reparse(&Scenario{Version: 1, Title: "t", Events: []Event{
		{Actor: "A", Kind: Acquire}, {Actor: "B", Kind: Pause}, {Actor: "C", Kind: Pause}}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		after [][]int
		want  int64
	}{
		{[][]int{nil, {1}, {2}}, 1},
		{[][]int{nil, nil, nil}, 6},
		{[][]int{nil, nil, {1, 2}}, 2},
		{[][]int{{3}, {2}, nil}, 6}, // entries naming no earlier event are ignored
	}
	for _, tt := range tests {
		x := Explore(context.Background(), s, ExploreOptions{After: tt.after})
		if x.Orderings.Int64() != tt.want {
			t.Errorf("Explore(After %v).Orderings = %v, want %d", tt.after, x.Orderings, tt.want)
		}
	}
}

// randomAfter gives each event a few earlier events to follow.
func randomAfter(rng *rand.Rand, n int) [][]int {
	after := make([][]int, n)
	for i := range after {
		for j := 1; j <= i; j++ {
			if rng.IntN(3) == 0 {
				after[i] = append(after[i], j)
			}
		}
	}
	return after
}

// afterConstraints is After in naive's terms (0-based), plus a deliver
// after its send and a commit after its delivers, from the spec's words.
func afterConstraints(events []Event, after [][]int) [][]int {
	before := make([][]int, len(events))
	for i, e := range events {
		for _, j := range after[i] {
			before[i] = append(before[i], j-1)
		}
		for j, f := range events {
			switch {
			case e.Kind == Deliver && f.Kind == Send && f.ID == e.Request:
			case e.Kind == Commit && f.Kind == Deliver && f.Request == e.Request:
			default:
				continue
			}
			before[i] = append(before[i], j)
		}
	}
	return before
}
