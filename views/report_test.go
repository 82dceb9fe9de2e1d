package views

import (
	"strings"
	"testing"

	"fencelab/lab"
)

func TestActorClass(t *testing.T) {
	t.Parallel()
	var events []lab.Event
	for _, a := range strings.Fields("B A B C D E F G H I") {
		events = append(events, lab.Event{Actor: a, Kind: lab.Read})
	}
	events = append(events, lab.Event{Kind: lab.Deliver, Request: "r"})
	r := NewReport(&lab.Scenario{Events: events}, &lab.Trace{}, []lab.Policy{lab.Fenced})
	tests := []struct{ actor, want string }{
		{"B", "actor actor-0"}, // first to appear, though not first by name
		{"A", "actor actor-1"},
		{"H", "actor actor-7"},
		{"I", "actor actor-0"}, // the ninth wraps around
		{"Z", "actor actor-none"},
	}
	for _, tt := range tests {
		if got := r.actorClass(tt.actor); got != tt.want {
			t.Errorf("actorClass(%q) = %q, want %q", tt.actor, got, tt.want)
		}
	}
}

func TestDisagreeAndChanged(t *testing.T) {
	t.Parallel()
	old, next := "old", "new"
	step := func(n int, unfenced, fenced lab.Decision, uv, fv *string) lab.Step {
		var o lab.Outcomes
		o[lab.PolicyIndex(lab.Unfenced)] = lab.Outcome{Decision: unfenced, Values: map[string]*string{"result": uv}}
		o[lab.PolicyIndex(lab.Fenced)] = lab.Outcome{Decision: fenced, Values: map[string]*string{"result": fv}}
		return lab.Step{Index: n, Outcomes: o}
	}
	tr := &lab.Trace{Steps: []lab.Step{
		step(1, lab.Accepted, lab.Accepted, &next, &next),
		step(2, lab.Accepted, lab.Rejected, &old, &next),
		step(3, lab.Skipped, lab.Skipped, &old, &next),
	}}
	sc := &lab.Scenario{Resources: map[string]lab.Resource{"result": {Fencing: true}}}
	r := NewReport(sc, tr, []lab.Policy{lab.Unfenced, lab.Fenced})
	for i, want := range []bool{false, true, false} {
		if got := r.disagree(tr.Steps[i]); got != want {
			t.Errorf("disagree(step %d) = %v, want %v", i+1, got, want)
		}
	}
	if !r.skipped(tr.Steps[2]) || r.skipped(tr.Steps[1]) {
		t.Errorf("skipped: want only step 3")
	}
	changes := []struct {
		i    int
		p    lab.Policy
		want bool
	}{{0, lab.Fenced, true}, {1, lab.Unfenced, true}, {1, lab.Fenced, false}, {2, lab.Unfenced, false}}
	for _, c := range changes {
		if got := r.changed(c.i, c.p, "result"); got != c.want {
			t.Errorf("changed(step %d, %s) = %v, want %v", c.i+1, c.p, got, c.want)
		}
	}
	if one := NewReport(sc, tr, []lab.Policy{lab.Fenced}); one.disagree(tr.Steps[1]) {
		t.Errorf("a single policy cannot disagree with itself")
	}
}
