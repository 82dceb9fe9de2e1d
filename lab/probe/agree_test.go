package probe_test

import (
	"testing"
	"time"

	"fencelab/lab"
	"fencelab/lab/probe"
	"fencelab/lab/receiver"
)

// TestCorrectReceiversAgree plays every built-in scenario, in order and in
// every ordering the explorer follows (a seeded sample under -short), at
// each correct reference receiver, and runs the concurrent mode against
// it: a correct receiver agrees with the model everywhere.
func TestCorrectReceiversAgree(t *testing.T) {
	lib := library(t)
	shortShares := 2 * len(receiver.Policies) // one part of the built-ins per pair

	pair := 0
	for _, store := range []string{"memory", "sqlite"} {
		for _, policy := range receiver.Policies {
			share := pair
			pair++
			t.Run(store+"/"+string(policy), func(t *testing.T) {
				t.Parallel()
				url := startReceiver(t, store, receiver.Options{Policy: policy})
				p := newProber(t, url, policy)
				for i, b := range lib.List {
					// Under -short the pairs share the built-ins out: each
					// is still played, by one of the receivers.
					if testing.Short() && i%shortShares != share%shortShares {
						continue
					}
					agreeSequential(t, p, b)
					agreeOrderings(t, p, b)
				}
				agreeConcurrent(t, p)
			})
		}
	}
}

func agreeSequential(t *testing.T, p *probe.Prober, b lab.Builtin) {
	t.Helper()
	res, err := p.Sequential(t.Context(), b.Scenario)
	if err != nil {
		t.Fatalf("Sequential(%s) under %s: %v", b.Name, p.Policy, err)
	}
	if res.Verdict != probe.Agree {
		t.Errorf("Sequential(%s) under %s = %s: %s", b.Name, p.Policy, res.Verdict, res.Divergence)
	}
}

func agreeOrderings(t *testing.T, p *probe.Prober, b lab.Builtin) {
	t.Helper()
	// Every ordering of the built-ins is some 31,000 plays per receiver:
	// all of them where a scenario has at most 300, else 60 drawn with a fixed seed.
	// Under -short, 2 drawn, without counting them all first.
	opt := probe.OrderingsOptions{}
	switch {
	case testing.Short():
		opt = probe.OrderingsOptions{N: 2, Seed: 1}
	case countOrderings(b.Scenario, 300) > 300:
		opt = probe.OrderingsOptions{N: 60, Seed: 1}
	}
	res, err := p.Orderings(t.Context(), b.Scenario, opt)
	if err != nil {
		t.Fatalf("Orderings(%s) under %s: %v", b.Name, p.Policy, err)
	}
	if res.Verdict != probe.Agree || res.Orderings.Tried == 0 {
		t.Errorf("Orderings(%s) under %s = %s after %d orderings: %s", b.Name, p.Policy, res.Verdict, res.Orderings.Tried, res.Divergence)
	}
}

func countOrderings(s *lab.Scenario, limit int) int {
	n := 0
	for range lab.Orderings(s, lab.ExploreOptions{}) {
		if n++; n > limit {
			break
		}
	}
	return n
}

func agreeConcurrent(t *testing.T, p *probe.Prober) {
	t.Helper()
	d := 3 * time.Second
	if testing.Short() {
		d = 25 * time.Millisecond // still a hundred requests or more from 8 workers
	}
	res, err := p.Concurrent(t.Context(), probe.ConcurrentOptions{Workers: 8, Duration: d, KeepGoing: true})
	if err != nil {
		t.Fatalf("Concurrent under %s: %v", p.Policy, err)
	}
	c := res.Concurrent
	// On a loaded machine a short run may be few requests; late writes
	// and retries come once there are some hundreds.
	if res.Verdict != probe.Agree || c.Applied == 0 || c.Final == nil || c.Requests >= 300 && c.Rejected == 0 {
		t.Errorf("Concurrent under %s = %s, %d requests (%d applied, %d rejected): %s", p.Policy, res.Verdict, c.Requests, c.Applied, c.Rejected, res.Divergence)
	}
	if p.Policy.Idempotent() && c.Requests >= 300 && c.Suppressed == 0 {
		t.Errorf("Concurrent under %s suppressed no retry in %d requests", p.Policy, c.Requests)
	}
}
