package views

import (
	"strings"
	"testing"

	"fencelab/lab"
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
		if got := DiagramPolicy(tt.chosen, tt.asked); got != tt.want {
			t.Errorf("DiagramPolicy(%v, %q) = %q, want %q", tt.chosen, tt.asked, got, tt.want)
		}
	}
}

func TestPageQuery(t *testing.T) {
	t.Parallel()
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
		if got := withQuery("/x", pageQuery(tt.chosen, tt.d)); got != tt.want {
			t.Errorf("withQuery(/x, pageQuery(%v, %q)) = %q, want %q", tt.chosen, tt.d, got, tt.want)
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
		p := PresentPage{Report: NewReport(sc, tr, lab.Policies()), Diagram: tt.policy, Predict: tt.predict}
		ask, answer := p.question(tr.Steps[tt.step-1])
		if ask != tt.ask || answer != tt.answer {
			t.Errorf("question(step %d) under %s, predict %v = %q, %q; want %q, %q",
				tt.step, tt.policy, tt.predict, ask, answer, tt.ask, tt.answer)
		}
	}
}
