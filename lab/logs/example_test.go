package logs

import (
	"slices"
	"testing"
	"time"

	"fencelab/lab"
)

// TestExample imports the walkthrough of docs/import.md and checks the
// scenario, the verdicts and the orderings it describes.
func TestExample(t *testing.T) {
	m, files := exampleFiles(t)
	res, err := run(t, m, Options{}, files...)
	if err != nil {
		t.Fatalf("import of docs/import: %v", err)
	}
	want := []struct {
		kind  lab.Kind
		actor string
		token int64
		src   string
	}{
		{lab.Acquire, "worker-1", 41, "scheduler.jsonl:2"},
		{lab.Read, "worker-1", 0, "worker-1.log:2"},
		{lab.Pause, "worker-1", 0, "worker-1.log:3"},
		{lab.Expire, "worker-1", 0, "scheduler.jsonl:4"},
		{lab.Acquire, "worker-2", 42, "scheduler.jsonl:5"},
		{lab.Read, "worker-2", 0, "worker-2.log:2"},
		{lab.Send, "worker-2", 42, "worker-2.log:3"},
		{lab.Deliver, "", 0, "storage.csv:3"},
		{lab.Resume, "worker-1", 0, "worker-1.log:4"},
		{lab.Send, "worker-1", 41, "worker-1.log:5"},
		{lab.Deliver, "", 0, "storage.csv:4"},
		{lab.Release, "worker-2", 0, "scheduler.jsonl:7"},
	}
	evs := res.Scenario.Events
	if len(evs) != len(want) {
		t.Fatalf("import of docs/import: %d events, want %d", len(evs), len(want))
	}
	for i, w := range want {
		e := evs[i]
		if e.Kind != w.kind || e.Actor != w.actor || e.Note != w.src || (w.token != 0 && (e.Token == nil || *e.Token != w.token)) {
			t.Errorf("event %d = %s %s %v %q, want %s %s %d %q", i+1, e.Kind, e.Actor, e.Token, e.Note, w.kind, w.actor, w.token, w.src)
		}
	}
	wantObs := []Observation{{8, Applied}, {11, Applied}}
	if !slices.Equal(res.Observed, wantObs) {
		t.Errorf("observed = %v, want %v", res.Observed, wantObs)
	}
	checkVerdicts(t, res, []lab.Policy{lab.Unfenced, lab.CAS}, 11)
	if res.ProblemCount != 1 || res.Problems[0].Source != "worker-2.log:5" {
		t.Errorf("problems = %d %v, want the one cut line worker-2.log:5", res.ProblemCount, res.Problems)
	}
	if w := res.Against[0].Words; w != "the resource behaved like `unfenced`: it applied token 41 after it had applied 42 (step 11, stale-overwrite)" {
		t.Errorf("against[0].words = %q", w)
	}
}

// checkVerdicts wants exactly the policies agreeing, listed first, and
// every other first disagreeing at step.
func checkVerdicts(t *testing.T, res *Result, agreeing []lab.Policy, step int) {
	t.Helper()
	for i, v := range res.Against {
		wantAgree := i < len(agreeing)
		if wantAgree && v.Policy != agreeing[i] || v.Agrees != wantAgree {
			t.Errorf("against[%d] = %s agrees=%v, want the agreeing %v first", i, v.Policy, v.Agrees, agreeing)
		}
		if !v.Agrees && (v.FirstDisagreement == nil || *v.FirstDisagreement != step) {
			t.Errorf("against %s first disagreement = %v, want %d", v.Policy, v.FirstDisagreement, step)
		}
	}
}

// TestExampleSkew explores the orderings a 50 ms skew allows in the walkthrough.
func TestExampleSkew(t *testing.T) {
	m, files := exampleFiles(t)
	res, err := run(t, m, Options{Explore: true, Skew: 50 * time.Millisecond}, files...)
	if err != nil {
		t.Fatalf("import --skew 50ms: %v", err)
	}
	x := res.Orderings
	if x == nil || !x.Complete || x.Orderings.Int64() != 2 {
		t.Fatalf("orderings = %+v, want 2, complete", x)
	}
	for _, pe := range x.Policies {
		worst := pe.Worst != nil
		if want := pe.Policy == lab.Unfenced || pe.Policy == lab.CAS; worst != want {
			t.Errorf("orderings: %s worst = %v, want a class only for unfenced and cas", pe.Policy, pe.Worst)
		}
	}
	var unordered int
	for _, g := range res.Gaps {
		if g.Kind == "unordered" {
			unordered++
		}
	}
	if unordered != 1 {
		t.Errorf("gaps = %v, want 1 unordered run (the grant to worker-2 and its read)", res.Gaps)
	}
}
