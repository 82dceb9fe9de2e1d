package lab

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestGroupsOf checks which policies share a lane while exploring: those
// whose rules differ only in what the scenario never uses.
func TestGroupsOf(t *testing.T) {
	t.Parallel()
	const res = `"resources":{"r":{"fencing":true}},`
	for _, c := range []struct {
		name   string
		s      *Scenario
		shared map[Policy]Policy // policy: the policy whose lane decides for it; the others run their own
	}{
		{"nothing of model 3, no op key, no commit", spinModel(t, 2),
			map[Policy]Policy{FencedIdempotent: Fenced, FencedRacy: Fenced, CAS: Unfenced}},
		{"an rmw write", ev(t, job41+res, "A acquire", "A read", "A write v rmw=true"),
			map[Policy]Policy{FencedIdempotent: Fenced, FencedRacy: Fenced}},
		{"an op key", ev(t, job41+res, "A acquire", "A write v op=x"),
			map[Policy]Policy{FencedRacy: Fenced, CAS: Unfenced}},
		{"a commit", ev(t, job41+res, "A acquire", "A send q v", "deliver q", "commit q"),
			map[Policy]Policy{FencedIdempotent: Fenced, CAS: Unfenced}},
		{"every rule used", ev(t, job41+res, "A acquire", "A read", "A send q v op=x rmw=true", "deliver q", "commit q"),
			nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := groupsOf(compile(c.s))
			for p, policy := range policies {
				want := c.shared[policy]
				if want == "" {
					want = policy
				}
				if got := policies[g.run[g.lane[p]]]; got != want {
					t.Errorf("groupsOf(%s): %s decided by the lane of %s, want %s", c.name, policy, got, want)
				}
			}
			if want := numPolicies - len(c.shared); len(g.run) != want {
				t.Errorf("groupsOf(%s) runs %d lanes, want %d", c.name, len(g.run), want)
			}
		})
	}
}

// TestSharedLanesExploreAlike explores random scenarios of model 2 and of
// model 3 under the four switches twice, once with the policies that
// decide alike sharing a lane and once with a lane each, and checks that
// every figure but the bytes held is the same: sharing is unseen.
func TestSharedLanesExploreAlike(t *testing.T) {
	t.Parallel()
	n := 150
	if testing.Short() {
		n = 25
	}
	rng := rand.New(rand.NewPCG(21, 21))
	shared, copied := 0, int64(0)
	for i := range 2 * n {
		gen := genSmall(rng)
		if i >= n {
			gen = genSmall3(rng)
		}
		s, err := reparse(gen)
		if err != nil {
			t.Fatalf("generated scenario %d does not parse: %v", i, err)
		}
		g := groupsOf(compile(s))
		if len(g.run) < numPolicies {
			shared++
		}
		for _, opt := range switches {
			opt.Budget = 20_000
			x, got := exploreJSON(s, opt, groupsOf)
			_, want := exploreJSON(s, opt, func(*program) laneGroups { return everyLane() })
			if !bytes.Equal(got, want) {
				events, _ := json.Marshal(s.Events)
				t.Fatalf("Explore(%s, %s) with shared lanes:\n%s\nwith a lane each:\n%s", events, describeOptions(opt), got, want)
			}
			for p, policy := range policies {
				if g.run[g.lane[p]] != p {
					copied += x.Of(policy).AnyViolating.Int64()
				}
			}
		}
	}
	if shared < n || copied == 0 {
		t.Errorf("%d of %d scenarios shared lanes, with %d violating orderings of the policies that shared: the test compares too little", shared, 2*n, copied)
	}
}

// exploreJSON explores s running the lanes groups gives, and returns the
// exploration and its JSON without the bytes held.
func exploreJSON(s *Scenario, opt ExploreOptions, groups func(*program) laneGroups) (*Exploration, []byte) {
	x := newExplorer(context.Background(), s, opt, groups)
	x.run()
	ex := x.result()
	ex.Bytes = 0
	b, _ := json.Marshal(ex)
	return ex, b
}

// TestReplayRunsEveryLane checks that Replay, which must give every
// policy its reasons, runs every policy in its own lane even where some
// would decide alike.
func TestReplayRunsEveryLane(t *testing.T) {
	t.Parallel()
	var r replayer
	r.init(spinModel(t, 2))
	var got []Policy
	for _, l := range r.lanes[:r.nl] {
		got = append(got, l.policy)
	}
	if !slices.Equal(got, policies[:]) {
		t.Errorf("replayer.init(spin model) runs lanes %v, want %v", got, policies)
	}
}
