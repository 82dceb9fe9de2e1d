package lab

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// replayQuietly replays s deciding only, as the explorer does.
func replayQuietly(s *Scenario) *replayer {
	r := newReplayer(s)
	r.quiet = true
	for i := range r.pr.events {
		r.step(i)
	}
	return r
}

// TestQuietReplayDecides checks the explorer's decisions-only replay
// against the full replay on every built-in and on random scenarios: the
// same decision at every step under every policy, the same violations
// with their classes, the same receivers and leases at the end; and no
// reason, value or warning built.
func TestQuietReplayDecides(t *testing.T) {
	t.Parallel()
	var inputs []*Scenario
	for _, name := range []string{"paused-worker", "old-token-first", "issuer-failover", "racy-receiver", "forgetful-receiver",
		"duplicate-retry", "scope-mismatch", "renew-keeps-lease", "check-then-pause", "external-side-effect"} {
		inputs = append(inputs, builtin(t, name))
	}
	rng := rand.New(rand.NewPCG(9, 9))
	n := 3000
	if testing.Short() {
		n = 150
	}
	for range n {
		o := genOptions{actors: 1 + rng.IntN(5), scopes: 1 + rng.IntN(2), resources: 1 + rng.IntN(2), events: 1 + rng.IntN(40),
			tokens: rng.IntN(2) == 0, memory: rng.IntN(2) == 0, unfenced: rng.IntN(3) == 0}
		s, err := reparse(generate(rng, o))
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, s)
	}
	for _, s := range inputs {
		if d := quietDiff(s); d != "" {
			b, _ := json.Marshal(s)
			t.Fatalf("quiet replay of %s: %s", b, d)
		}
	}
}

func quietDiff(s *Scenario) string {
	full, quiet := newReplayer(s), replayQuietly(s)
	for i := range full.pr.events {
		full.step(i)
	}
	tr := full.trace()
	for i, st := range tr.Steps {
		for li, o := range st.Outcomes {
			q := quiet.steps[i].Outcomes[li]
			if q.Decision != o.Decision {
				return fmt.Sprintf("step %d under %s: %s, want %s", i+1, policies[li], q.Decision, o.Decision)
			}
			if q.Reason != "" || q.Values != nil || q.Tokens != nil {
				return fmt.Sprintf("step %d under %s: reason %q, values %v: built while quiet", i+1, policies[li], q.Reason, q.Values)
			}
		}
		if qs := quiet.steps[i]; qs.Warning != "" || qs.Token != nil || qs.Event.Kind != "" {
			return fmt.Sprintf("step %d: warning %q, token %v, event %v built while quiet", i+1, qs.Warning, qs.Token, qs.Event)
		}
	}
	if len(quiet.warnings) != 0 || quiet.snaps != 0 || quiet.ntexts != 0 {
		return fmt.Sprintf("%d warnings, %d snapshots, %d texts built while quiet", len(quiet.warnings), quiet.snaps, quiet.ntexts)
	}
	for li := range full.lanes {
		f, q := &full.lanes[li], &quiet.lanes[li]
		if !slices.Equal(f.violations, q.violations) {
			return fmt.Sprintf("%s: violations %v, want %v", f.policy, q.violations, f.violations)
		}
		for ri := range f.res {
			a, b := f.res[ri], q.res[ri]
			if fmt.Sprint(deref(a.value), a.rems, a.ops, a.keys, a.applied) != fmt.Sprint(deref(b.value), b.rems, b.ops, b.keys, b.applied) {
				return fmt.Sprintf("%s: receiver %d ends %+v, want %+v", f.policy, ri, b, a)
			}
		}
	}
	if fmt.Sprint(full.leases) != fmt.Sprint(quiet.leases) {
		return fmt.Sprintf("leases end %+v, want %+v", quiet.leases, full.leases)
	}
	return ""
}
