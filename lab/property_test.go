package lab

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"testing"
)

// forRandom runs check on n random scenarios from a fixed seed, after a
// round trip through JSON and Parse.
func forRandom(t *testing.T, n int, o genOptions, check func(t *testing.T, s *Scenario, tr *Trace)) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < n; i++ {
		opts := o
		opts.events = 1 + rng.IntN(o.events)
		s, err := reparse(generate(rng, opts))
		if err != nil {
			t.Fatalf("generated scenario %d does not parse: %v", i, err)
		}
		check(t, s, Replay(s))
		if t.Failed() {
			b, _ := json.Marshal(s)
			t.Fatalf("failing scenario %d: %s", i, b)
		}
	}
}

var wide = genOptions{actors: 3, scopes: 2, resources: 2, events: 30, tokens: true, memory: true, unfenced: true}

func TestPropertyDeterministicJSON(t *testing.T) {
	t.Parallel()
	n := 300
	if testing.Short() {
		n = 60 // every replay twice, and JSON twice: the slowest property
	}
	forRandom(t, n, wide, func(t *testing.T, s *Scenario, tr *Trace) {
		a, _ := json.Marshal(tr)
		b, _ := json.Marshal(Replay(s))
		if !bytes.Equal(a, b) {
			t.Errorf("Replay is not deterministic")
		}
	})
}

// TestPropertyShape: a step per event, an outcome per policy, and skips
// that are the same in every policy and listed as warnings.
func TestPropertyShape(t *testing.T) {
	t.Parallel()
	forRandom(t, samples(300), wide, func(t *testing.T, s *Scenario, tr *Trace) {
		if len(tr.Steps) != len(s.Events) || !slices.Equal(tr.Policies, policies[:]) {
			t.Fatalf("trace has %d steps and policies %v, want %d and %v", len(tr.Steps), tr.Policies, len(s.Events), policies)
		}
		skipped := 0
		for _, st := range tr.Steps {
			first := st.Outcomes[0].Decision == Skipped
			for i, o := range st.Outcomes {
				if (o.Decision == Skipped) != first {
					t.Errorf("step %d skipped under %s but not under %s", st.Index, policies[0], policies[i])
				}
				if o.Reason == "" || len(o.Values) != len(s.Resources) {
					t.Errorf("step %d under %s: reason %q, %d values, want a reason and %d", st.Index, policies[i], o.Reason, len(o.Values), len(s.Resources))
				}
			}
			if first {
				skipped++
				if st.Warning == "" {
					t.Errorf("skipped step %d has no warning", st.Index)
				}
			}
		}
		if skipped != len(tr.Warnings) {
			t.Errorf("%d skipped steps, %d warnings", skipped, len(tr.Warnings))
		}
	})
}

// TestPropertyValuesChangeOnlyAtWrites: a value changes only at a step
// that delivers or commits.
func TestPropertyValuesChangeOnlyAtWrites(t *testing.T) {
	t.Parallel()
	forRandom(t, samples(300), wide, func(t *testing.T, s *Scenario, tr *Trace) {
		for i := 1; i < len(tr.Steps); i++ {
			st := tr.Steps[i]
			for p := range policies {
				changed := !sameValues(tr.Steps[i-1].Outcomes[p].Values, st.Outcomes[p].Values)
				d := st.Outcomes[p].Decision
				if changed && d != Accepted && d != Applied {
					t.Errorf("step %d under %s changed a value with decision %s", st.Index, policies[p], d)
				}
			}
		}
	})
}

func sameValues(a, b map[string]*string) bool {
	for k, v := range a {
		w := b[k]
		if (v == nil) != (w == nil) || v != nil && *v != *w {
			return false
		}
	}
	return len(a) == len(b)
}

// TestPropertyFencedNeverStale: under fenced, at durable fencing receivers,
// with one scope and no token overrides, no stale-overwrite can happen.
func TestPropertyFencedNeverStale(t *testing.T) {
	t.Parallel()
	o := genOptions{actors: 4, scopes: 1, resources: 2, events: 40}
	unfenced := 0
	// Every run, -short too, tries all 500: fewer hold no stale-overwrite.
	forRandom(t, 500, o, func(t *testing.T, s *Scenario, tr *Trace) {
		unfenced += count(tr, Unfenced, StaleOverwrite)
		if n := count(tr, Fenced, StaleOverwrite); n > 0 {
			t.Errorf("fenced has %d stale-overwrite", n)
		}
	})
	if unfenced == 0 {
		t.Errorf("no generated scenario has a stale-overwrite even unfenced: the property tests nothing")
	}
}

func count(tr *Trace, p Policy, kind Invariant) int {
	n := 0
	for _, v := range tr.Summary[p].Violations {
		if v.Kind == kind {
			n++
		}
	}
	return n
}

// TestPropertyAuthoritativeOwned: under authoritative, without token
// overrides, no write lands from an actor that does not hold the lease.
func TestPropertyAuthoritativeOwned(t *testing.T) {
	t.Parallel()
	o := genOptions{actors: 4, scopes: 2, resources: 2, events: 40, memory: true}
	unfenced := 0
	forRandom(t, samples(500), o, func(t *testing.T, s *Scenario, tr *Trace) {
		unfenced += count(tr, Unfenced, UnownedWrite)
		for _, v := range tr.Summary[Authoritative].Violations {
			if v.Kind == UnownedWrite || v.Kind == SupersededWrite || v.Kind == StaleOverwrite {
				t.Errorf("authoritative has %s at step %d", v.Kind, v.Step)
			}
		}
	})
	if unfenced == 0 {
		t.Errorf("no generated scenario has an unowned-write even unfenced: the property tests nothing")
	}
}

// TestPropertyIdempotentNoDuplicates: fenced-idempotent never applies an
// operation twice at a fencing receiver.
func TestPropertyIdempotentNoDuplicates(t *testing.T) {
	t.Parallel()
	o := genOptions{actors: 3, scopes: 2, resources: 2, events: 40, tokens: true, memory: true}
	fenced := 0
	forRandom(t, samples(500), o, func(t *testing.T, s *Scenario, tr *Trace) {
		fenced += count(tr, Fenced, DuplicateApplied)
		if n := count(tr, FencedIdempotent, DuplicateApplied); n > 0 {
			t.Errorf("fenced-idempotent has %d duplicate-applied", n)
		}
	})
	if fenced == 0 {
		t.Errorf("no generated scenario applies an op twice even under fenced: the property tests nothing")
	}
}

// TestPropertyRoundTrip: the canonical JSON of a scenario replays to the
// same trace.
func TestPropertyRoundTrip(t *testing.T) {
	t.Parallel()
	forRandom(t, samples(200), wide, func(t *testing.T, s *Scenario, tr *Trace) {
		s2, err := reparse(s)
		if err != nil {
			t.Fatalf("canonical JSON does not parse: %v", err)
		}
		a, _ := json.Marshal(tr)
		b, _ := json.Marshal(Replay(s2))
		if !bytes.Equal(a, b) {
			t.Errorf("canonical JSON replays differently")
		}
	})
}
