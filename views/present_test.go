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

func TestDiagramPolicy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		chosen []lab.Policy
		asked  string
		want   lab.Policy
	}{
		{[]lab.Policy{lab.Unfenced, lab.Fenced}, "", lab.Fenced},
		{[]lab.Policy{lab.Unfenced, lab.Authoritative}, "", lab.Unfenced},
		{[]lab.Policy{lab.Authoritative}, "", lab.Authoritative},
		{nil, "", lab.Fenced},
		{[]lab.Policy{lab.Unfenced, lab.Fenced}, "fenced-racy", lab.FencedRacy},
		{[]lab.Policy{lab.Unfenced}, "FENCED", lab.Unfenced},
		{[]lab.Policy{lab.Unfenced}, "nonsense", lab.Unfenced},
	}
	for _, tt := range tests {
		if got := views.DiagramPolicy(tt.chosen, tt.asked); got != tt.want {
			t.Errorf("DiagramPolicy(%v, %q) = %q, want %q", tt.chosen, tt.asked, got, tt.want)
		}
	}
}

// TestPageQuery: the presentation's way out leads back to the page with
// the reader's policies, and the diagram's unless it is their default.
func TestPageQuery(t *testing.T) {
	t.Parallel()
	sc, tr := builtin(t, "paused-worker")
	tests := []struct {
		chosen []lab.Policy
		d      lab.Policy
		want   string
	}{
		{[]lab.Policy{lab.Unfenced, lab.Fenced}, lab.Fenced, "/x?p=unfenced&p=fenced"},
		{[]lab.Policy{lab.Unfenced, lab.Fenced}, lab.Unfenced, "/x?d=unfenced&p=unfenced&p=fenced"},
		{[]lab.Policy{lab.Authoritative}, lab.Authoritative, "/x?p=authoritative"},
		{nil, lab.Fenced, "/x"},
	}
	for _, tt := range tests {
		p := views.PresentPage{Report: newReport(sc, tr, tt.chosen), Diagram: tt.d, Page: "/x"}
		exit := htmltest.Find(render(t, "Present", views.Present(p)), tagClass("a", "present-exit"))
		if got := htmltest.Attr(exit, "href"); exit == nil || got != tt.want {
			t.Errorf("Present(page /x, policies %v, diagram %s): exit link %q, want %q", tt.chosen, tt.d, got, tt.want)
		}
	}
}

// TestQuestion asks about writes and deliveries that are accepted or
// rejected under the diagram's policy, and only in predict mode.
func TestQuestion(t *testing.T) {
	t.Parallel()
	sc, err := lab.Parse(strings.NewReader(`{"version": 1, "title": "q", "events": [
		{"actor": "A", "kind": "acquire"},
		{"actor": "A", "kind": "expire"},
		{"actor": "B", "kind": "acquire"},
		{"actor": "B", "kind": "write", "value": "new"},
		{"actor": "A", "kind": "send", "value": "old", "id": "r1"},
		{"kind": "deliver", "request": "r1"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	tr := lab.Replay(sc)
	tests := []struct {
		policy  lab.Policy
		predict bool
		step    int
		ask     string
		answer  lab.Decision
	}{
		{lab.Fenced, true, 1, "", ""},
		{lab.Fenced, true, 4, "Under fenced, is B’s write of “new” with token 2 accepted or rejected?", lab.Accepted},
		{lab.Fenced, true, 5, "", ""},
		{lab.Fenced, true, 6, "Under fenced, is request r1 with token 1 accepted or rejected?", lab.Rejected},
		{lab.Unfenced, true, 6, "Under unfenced, is request r1 with token 1 accepted or rejected?", lab.Accepted},
		{lab.ClientCheck, true, 6, "", ""}, // dropped: the send was aborted
		{lab.Fenced, false, 6, "", ""},
	}
	for _, tt := range tests {
		p := views.PresentPage{Report: newReport(sc, tr, lab.Policies()), Diagram: tt.policy, Predict: tt.predict, Page: "/x"}
		row := htmltest.Find(render(t, "Present", views.Present(p)), func(n *html.Node) bool {
			return n.Data == "tr" && htmltest.Attr(n, "data-step") == strconv.Itoa(tt.step)
		})
		if row == nil {
			t.Fatalf("Present(q) under %s has no row of step %d", tt.policy, tt.step)
		}
		ask, answer := htmltest.Attr(row, "data-ask"), lab.Decision(htmltest.Attr(row, "data-answer"))
		if ask != tt.ask || answer != tt.answer {
			t.Errorf("Present(q) step %d under %s, predict %v: data-ask, data-answer = %q, %q; want %q, %q",
				tt.step, tt.policy, tt.predict, ask, answer, tt.ask, tt.answer)
		}
	}
}
