package views_test

import (
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"fencelab/lab"
	"fencelab/views"
	"fencelab/views/htmltest"
)

// stepRow is the row of step n in the rendered step table.
func stepRow(t *testing.T, root *html.Node, n int) *html.Node {
	t.Helper()
	row := htmltest.Find(root, func(e *html.Node) bool { return e.Data == "tr" && htmltest.Attr(e, "id") == "step-"+strconv.Itoa(n) })
	if row == nil {
		t.Fatalf("StepTable has no row of step %d", n)
	}
	return row
}

// TestActorClass colours each actor by the order in which it first
// appears, eight colours round, and an actor the scenario lacks by none.
func TestActorClass(t *testing.T) {
	t.Parallel()
	var events []lab.Event
	var steps []lab.Step
	for i, a := range strings.Fields("B A B C D E F G H I Z") {
		e := lab.Event{Actor: a, Kind: lab.Read}
		if a != "Z" { // Z acts in the trace only: not one of the scenario's actors
			events = append(events, e)
		}
		steps = append(steps, lab.Step{Index: i + 1, Event: e})
	}
	events = append(events, lab.Event{Kind: lab.Deliver, Request: "r"})
	r := newReport(&lab.Scenario{Events: events}, &lab.Trace{Steps: steps}, []lab.Policy{lab.Fenced})
	root := render(t, "StepTable", views.StepTable(r))
	tests := []struct {
		step        int
		actor, want string
	}{
		{1, "B", "actor actor-0"}, // first to appear, though not first by name
		{2, "A", "actor actor-1"},
		{9, "H", "actor actor-7"},
		{10, "I", "actor actor-0"}, // the ninth wraps around
		{11, "Z", "actor actor-none"},
	}
	for _, tt := range tests {
		span := htmltest.Find(stepRow(t, root, tt.step), func(e *html.Node) bool { return e.Data == "span" && htmltest.HasClass(e, "actor") })
		if span == nil || htmltest.Text(span) != tt.actor || htmltest.Attr(span, "class") != tt.want {
			t.Errorf("StepTable step %d: actor %q has class %q, want %q", tt.step, tt.actor, htmltest.Attr(span, "class"), tt.want)
		}
	}
}

// TestDisagreeAndChanged marks the steps where the chosen policies decide
// differently, the skipped ones, and each value a step changed.
func TestDisagreeAndChanged(t *testing.T) {
	t.Parallel()
	old, next := "old", "new"
	step := func(n int, unfenced, fenced lab.Decision, uv, fv *string) lab.Step {
		var o lab.Outcomes
		o[lab.PolicyIndex(lab.Unfenced)] = lab.Outcome{Decision: unfenced, Values: map[string]*string{"result": uv}}
		o[lab.PolicyIndex(lab.Fenced)] = lab.Outcome{Decision: fenced, Values: map[string]*string{"result": fv}}
		return lab.Step{Index: n, Event: lab.Event{Actor: "A", Kind: lab.Write}, Outcomes: o}
	}
	tr := &lab.Trace{Steps: []lab.Step{
		step(1, lab.Accepted, lab.Accepted, &next, &next),
		step(2, lab.Accepted, lab.Rejected, &old, &next),
		step(3, lab.Skipped, lab.Skipped, &old, &next),
	}}
	sc := &lab.Scenario{Resources: map[string]lab.Resource{"result": {Fencing: true}}}
	root := render(t, "StepTable(unfenced, fenced)", views.StepTable(newReport(sc, tr, []lab.Policy{lab.Unfenced, lab.Fenced})))
	for i, want := range []bool{false, true, false} {
		if got := htmltest.HasClass(stepRow(t, root, i+1), "disagree"); got != want {
			t.Errorf("StepTable step %d: disagree %v, want %v", i+1, got, want)
		}
	}
	if !htmltest.HasClass(stepRow(t, root, 3), "skipped") || htmltest.HasClass(stepRow(t, root, 2), "skipped") {
		t.Errorf("StepTable: skipped marks steps other than step 3 alone")
	}
	changes := []struct {
		i    int
		p    lab.Policy
		want bool
	}{{0, lab.Fenced, true}, {1, lab.Unfenced, true}, {1, lab.Fenced, false}, {2, lab.Unfenced, false}}
	for _, c := range changes {
		cell := htmltest.Find(stepRow(t, root, c.i+1), func(e *html.Node) bool { return e.Data == "td" && htmltest.Attr(e, "data-label") == string(c.p) })
		if cell == nil {
			t.Fatalf("StepTable step %d has no cell for %s", c.i+1, c.p)
		}
		if got := htmltest.Find(cell, tagClass("div", "changed")) != nil; got != c.want {
			t.Errorf("StepTable step %d under %s: result changed %v, want %v", c.i+1, c.p, got, c.want)
		}
	}
	one := render(t, "StepTable(fenced)", views.StepTable(newReport(sc, tr, []lab.Policy{lab.Fenced})))
	if htmltest.HasClass(stepRow(t, one, 2), "disagree") {
		t.Errorf("StepTable(fenced) step 2: a single policy cannot disagree with itself")
	}
}
