package lab

import (
	"fmt"
	"strings"
	"testing"
)

// TestRequests pairs sends and delivers in a hand-made trace, where a
// deliver that one policy drops or skips leaves the request to a later one.
func TestRequests(t *testing.T) {
	t.Parallel()
	step := func(kind Kind, id, request string, d map[Policy]Decision) Step {
		st := Step{Event: Event{Kind: kind, ID: id, Request: request}}
		for _, p := range Policies() {
			st.Outcomes[PolicyIndex(p)].Decision = Applied
		}
		for p, dec := range d {
			st.Outcomes[PolicyIndex(p)].Decision = dec
		}
		return st
	}
	tr := &Trace{Steps: []Step{
		step(Send, "r1", "", nil),
		step(Write, "w1", "", nil),
		step(Deliver, "", "r1", map[Policy]Decision{ClientCheck: Dropped, Fenced: Skipped}),
		step(Deliver, "", "r1", nil),
		step(Deliver, "", "ghost", nil),
		step(Send, "r2", "", nil),
	}}
	tests := []struct {
		p    Policy
		id   string
		want RequestSteps
	}{
		{Unfenced, "r1", RequestSteps{Send: 0, Decided: 2}},
		{ClientCheck, "r1", RequestSteps{Send: 0, Decided: 3}},
		{Fenced, "r1", RequestSteps{Send: 0, Decided: 3}},
		{Unfenced, "w1", RequestSteps{Send: 1, Decided: -1}},
		{Unfenced, "ghost", RequestSteps{Send: -1, Decided: 4}},
		{Unfenced, "r2", RequestSteps{Send: 5, Decided: -1}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%s", tt.p, tt.id), func(t *testing.T) {
			got, ok := Requests(tr, tt.p)[tt.id]
			if !ok || got != tt.want {
				t.Errorf("Requests(trace, %s)[%q] = %+v (present %v), want %+v", tt.p, tt.id, got, ok, tt.want)
			}
		})
	}
}

// TestRequestsReplay reads the pairs off real replays, one of them a send
// that client-check aborts, so that its deliver is dropped there.
func TestRequestsReplay(t *testing.T) {
	t.Parallel()
	aborted, err := Parse(strings.NewReader(`{"version": 1, "title": "aborted send",
		"scopes": {"job": {}}, "resources": {"result": {"fencing": true}},
		"events": [{"actor": "A", "kind": "acquire"}, {"actor": "A", "kind": "expire"},
			{"actor": "A", "kind": "send", "value": "v", "id": "a1"}, {"kind": "deliver", "request": "a1"}]}`))
	if err != nil {
		t.Fatalf("Parse(aborted send): %v", err)
	}
	tests := []struct {
		name string
		s    *Scenario
		p    Policy
		id   string
		want RequestSteps
	}{
		{"delayed-request", builtin(t, "delayed-request"), Fenced, "a1", RequestSteps{Send: 1, Decided: 5}},
		{"duplicate-retry", builtin(t, "duplicate-retry"), Fenced, "pay2", RequestSteps{Send: 3, Decided: 4}},
		{"racy-receiver", builtin(t, "racy-receiver"), FencedRacy, "r1", RequestSteps{Send: 1, Decided: 2}},
		{"aborted send", aborted, ClientCheck, "a1", RequestSteps{Send: 2, Decided: -1}},
		{"aborted send", aborted, Unfenced, "a1", RequestSteps{Send: 2, Decided: 3}},
	}
	for _, tt := range tests {
		got := Requests(Replay(tt.s), tt.p)[tt.id]
		if got != tt.want {
			t.Errorf("Requests(Replay(%s), %s)[%q] = %+v, want %+v", tt.name, tt.p, tt.id, got, tt.want)
		}
	}
}
