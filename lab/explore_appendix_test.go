package lab

import (
	"context"
	"fmt"
	"testing"
)

// TestExploreAppendixTable is the spec's table of what the explorer shows
// on the teaching scenarios of model 3 (defaults: writes split, expiry
// free): the orderings and the explored events, and per policy the worst
// class and the orderings per class, as corrupting/refusing/deposed/overrun.
func TestExploreAppendixTable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		orderings int64
		events    int
		want      [numPolicies]string // in the order of Policies
	}{
		{"stale-read-fresh-token", 1848, 11, [numPolicies]string{
			"corrupting 1684/0/59/65", "corrupting 231/0/3/363", "corrupting 283/0/9/294", "corrupting 283/0/9/294",
			"corrupting 283/0/9/294", "corrupting 90/0/0/363", "corrupting 37/0/0/0", "corrupting 283/0/9/294",
			"corrupting 3/0/717/422"}},
		{"split-brain", 336, 9, [numPolicies]string{
			"corrupting 140/0/192/0", "corrupting 140/0/80/0", "deposed 0/0/150/0", "refusing 0/4/132/0",
			"deposed 0/0/150/0", "none 0/0/0/0", "corrupting 140/0/80/0", "deposed 0/0/150/0",
			"corrupting 140/0/192/0"}},
		{"lease-service-forgets", 11880, 12, [numPolicies]string{
			"corrupting 11052/0/401/421", "corrupting 705/0/54/5181", "corrupting 1716/0/132/7062", "refusing 0/2311/879/5745",
			"corrupting 1716/0/132/7062", "corrupting 1716/0/132/7062", "corrupting 1716/0/132/0", "corrupting 1716/0/132/7062",
			"deposed 0/0/3411/6234"}},
		{"keys-forgotten", 56, 7, [numPolicies]string{
			"corrupting 56/0/0/0", "corrupting 56/0/0/0", "corrupting 56/0/0/0", "refusing 0/21/0/14",
			"corrupting 13/0/0/12", "corrupting 56/0/0/0", "corrupting 21/0/0/0", "corrupting 56/0/0/0",
			"corrupting 56/0/0/0"}},
		{"two-leases-one-worker", 382200, 14, [numPolicies]string{
			"corrupting 35877/0/115746/229618", "corrupting 8449/0/15218/138781", "deposed 0/0/51186/173023", "refusing 0/382200/0/0",
			"deposed 0/0/51186/173023", "overrun 0/0/0/181321", "none 0/0/0/0", "deposed 0/0/51186/173023",
			"corrupting 35877/0/115746/229618"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := Explore(context.Background(), builtin(t, tt.name), ExploreOptions{})
			if !x.Complete || x.Orderings.Int64() != tt.orderings || len(x.Events) != tt.events {
				t.Fatalf("Explore(%s) = complete %v, %v orderings, %d events; want complete, %d, %d",
					tt.name, x.Complete, x.Orderings, len(x.Events), tt.orderings, tt.events)
			}
			for i, p := range policies {
				pe := x.Of(p)
				worst := "none"
				if pe.Worst != nil {
					worst = string(*pe.Worst)
				}
				got := fmt.Sprintf("%s %v/%v/%v/%v", worst, pe.ByClass[Corrupting], pe.ByClass[Refusing], pe.ByClass[Deposed], pe.ByClass[Overrun])
				if got != tt.want[i] {
					t.Errorf("Explore(%s) under %s = %s, want %s", tt.name, p, got, tt.want[i])
				}
			}
		})
	}
}

// TestExploreCASAsUnfenced: on a scenario without an rmw write, cas
// counts exactly as unfenced (model 3's compatibility).
func TestExploreCASAsUnfenced(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"paused-worker", "old-token-first", "issuer-failover", "split-brain", "two-leases-one-worker"} {
		x := Explore(context.Background(), builtin(t, name), ExploreOptions{})
		u, c := x.Of(Unfenced), x.Of(CAS)
		if fmt.Sprint(u.ByClass, u.Violating, u.AnyViolating) != fmt.Sprint(c.ByClass, c.Violating, c.AnyViolating) {
			t.Errorf("Explore(%s) under cas = %v %v, want unfenced's %v %v", name, c.ByClass, c.Violating, u.ByClass, u.Violating)
		}
	}
}
