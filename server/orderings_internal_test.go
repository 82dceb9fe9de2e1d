package server

import (
	"math/big"
	"strings"
	"testing"

	"fencelab/lab"
)

// TestOrderingsView: an exploration stopped early claims no count it did
// not make and no verdict over orderings it did not follow to their end.
func TestOrderingsView(t *testing.T) {
	t.Parallel()
	corrupting := lab.Corrupting
	byClass := func(n int64) map[lab.Class]*big.Int { return map[lab.Class]*big.Int{corrupting: big.NewInt(n)} }
	explore := func(complete bool, n int64) *lab.Exploration {
		x := &lab.Exploration{Orderings: big.NewInt(n), Complete: complete, Policies: []lab.PolicyExploration{
			{Policy: "unfenced", Worst: &corrupting, ByClass: byClass(n)},
			{Policy: "fenced", ByClass: byClass(0)},
		}}
		if !complete {
			x.Stopped = lab.StopBudget
		}
		return x
	}
	tests := []struct {
		name string
		x    *lab.Exploration
		want []string
	}{
		{"complete", explore(true, 6), []string{
			"6 orderings are consistent with the logs and the skew.",
			"unfenced: worst corrupting, in 6 of them",
			"fenced: no violation in any of them"}},
		{"stopped after some", explore(false, 4), []string{
			"Stopped early (budget): not every ordering was explored, and the counts cover only the 4 followed to their end.",
			"unfenced: worst met corrupting, in 4 of those counted",
			"fenced: no violation met in the steps taken"}},
		{"stopped before any", explore(false, 0), []string{
			"Stopped early (budget) before any ordering was followed to its end: none is counted.",
			"unfenced: worst met in the steps taken: corrupting",
			"fenced: no violation met in the steps taken"}},
	}
	for _, tt := range tests {
		if got := orderingsView(tt.x); strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("%s: orderingsView =\n%s\nwant\n%s", tt.name, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
		}
	}
}
