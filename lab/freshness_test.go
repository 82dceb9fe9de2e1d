package lab

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// TestRMWFreshnessAgreesWithReplay holds RMWFreshness to what the replay
// decided, on the built-ins and on random scenarios whose writes are rmw
// at random: lost-update fires exactly where a stale rmw write was
// applied, and cas rejects an rmw write at a fencing resource exactly when
// it is stale, naming the versions RMWFreshness gives.
func TestRMWFreshnessAgreesWithReplay(t *testing.T) {
	for _, name := range []string{"stale-read-fresh-token", "lease-service-forgets"} {
		checkFreshness(t, name, builtin(t, name))
	}
	stale := 0
	rng := rand.New(rand.NewPCG(21, 3))
	for n := range 200 {
		s := generate(rng, genOptions{actors: 3, scopes: 2, resources: 2, events: 30, memory: true, unfenced: true})
		for i := range s.Events {
			e := &s.Events[i]
			switch {
			case (e.Kind == Write || e.Kind == Send) && rng.IntN(2) == 0:
				e.RMW = ptr(true)
			case e.Kind == Read && rng.IntN(2) == 0:
				e.Resource = "r0"
			}
		}
		s, err := reparse(s)
		if err != nil {
			t.Fatal(err)
		}
		stale += checkFreshness(t, "random "+strconv.Itoa(n), s)
	}
	if stale < 100 {
		t.Errorf("random scenarios decided %d stale rmw requests, want enough to test (100)", stale)
	}
}

// checkFreshness checks one scenario and counts the stale rmw requests
// decided under all policies.
func checkFreshness(t *testing.T, name string, s *Scenario) int {
	t.Helper()
	stale := 0
	tr := Replay(s)
	for _, p := range tr.Policies {
		fr := RMWFreshness(tr, p)
		lost := map[int]bool{}
		for _, v := range tr.Summary[p].Violations {
			lost[v.Step] = lost[v.Step] || v.Kind == LostUpdate
		}
		for i, st := range tr.Steps {
			f, ok := fr[i]
			if f.Stale {
				stale++
			}
			d := st.Outcomes.Of(p).Decision
			if applied := d == Accepted || d == Applied; lost[st.Index] != (ok && f.Stale && applied) {
				t.Fatalf("%s under %s step %d: lost-update %v, but RMWFreshness = %+v (%v), %s", name, p, st.Index, lost[st.Index], f, ok, d)
			}
			if p != CAS || !ok || !fencing(s, tr, i) {
				continue
			}
			if (d == Rejected) != f.Stale {
				t.Fatalf("%s under cas step %d: %s, but RMWFreshness = %+v", name, st.Index, st.Outcomes.Of(p).Reason, f)
			}
			want := "(version " + strconv.Itoa(f.Known) + ", now " + strconv.Itoa(f.Now) + ")"
			if d == Rejected && f.Read && !strings.HasSuffix(st.Outcomes.Of(p).Reason, want) {
				t.Fatalf("%s under cas step %d: %q, want it to end %q", name, st.Index, st.Outcomes.Of(p).Reason, want)
			}
		}
	}
	return stale
}

// fencing reports whether the request step i decides goes to a fencing
// resource (at another, cas applies every write).
func fencing(s *Scenario, tr *Trace, i int) bool {
	e := tr.Steps[i].Event
	if e.Kind != Write {
		if r, ok := Requests(tr, CAS)[e.Request]; ok && r.Send >= 0 {
			e = tr.Steps[r.Send].Event
		}
	}
	return s.Resources[e.Resource].Fencing
}
