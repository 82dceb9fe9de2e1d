package views

import (
	"testing"

	"fencelab/lab"
)

func TestPaths(t *testing.T) {
	t.Parallel()
	tests := []struct{ got, want string }{
		{ScenarioPath("paused-worker"), "/scenarios/paused-worker"},
		{RunPath("AbC123"), "/r/AbC123"},
		{RunPath("a/b?c"), "/r/a%2Fb%3Fc"},
		{JoinPath("K7Q"), "/join/K7Q"},
		{Link("/lab", "", nil), "/lab"},
		{Link("/lab", "r/AbC123", nil), "/lab?from=r/AbC123"},
		{Link("/explore", "r/AbC123", []lab.Policy{lab.Fenced, lab.FencedRacy}), "/explore?from=r/AbC123&p=fenced&p=fenced-racy"},
		{Link("/r/x", "", []lab.Policy{lab.Unfenced}), "/r/x?p=unfenced"},
		{Link("/lab", "a&p=x#y", nil), "/lab?from=a%26p%3Dx%23y"},
		{Fragment("ordering-3"), "#ordering-3"},
		{ScenarioPNGPath("paused-worker"), "/scenarios/paused-worker.png"},
		{APIScenarioPath("a b/c"), "/api/scenarios/a%20b%2Fc"},
		{RunFullPNGPath("x", lab.FencedRacy), "/r/x.png?size=full&d=fenced-racy"},
		{OEmbedPath("https://lab.example/r/x?p=fenced"), "/oembed?format=json&url=https%3A%2F%2Flab.example%2Fr%2Fx%3Fp%3Dfenced"},
		{JoinAnswerPath("K/7"), "/join/K%2F7/answer"},
		{RoomRevealPath("r1"), "/rooms/r1/reveal"},
		{PresentPathOf(RunPath("x")), "/r/x/present"},
		{Link(ExplorePath(), RunFrom("AbC123"), nil), "/explore?from=r/AbC123"},
		{StaticPath("no/such.css"), "/static/no/such.css"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

func TestCutPaths(t *testing.T) {
	t.Parallel()
	tests := []struct {
		call, got string
		ok        bool
		want      string
		wantOK    bool
	}{
		{"CutScenarioPath(/scenarios/x)", fst(CutScenarioPath("/scenarios/x")), snd(CutScenarioPath("/scenarios/x")), "x", true},
		{"CutScenarioPath(/r/x)", fst(CutScenarioPath("/r/x")), snd(CutScenarioPath("/r/x")), "/r/x", false},
		{"CutRunPath(/r/AbC)", fst(CutRunPath("/r/AbC")), snd(CutRunPath("/r/AbC")), "AbC", true},
		{"CutRunFrom(r/AbC)", fst(CutRunFrom("r/AbC")), snd(CutRunFrom("r/AbC")), "AbC", true},
		{"CutRunFrom(paused-worker)", fst(CutRunFrom("paused-worker")), snd(CutRunFrom("paused-worker")), "paused-worker", false},
	}
	for _, tt := range tests {
		if tt.got != tt.want || tt.ok != tt.wantOK {
			t.Errorf("%s = %q, %v, want %q, %v", tt.call, tt.got, tt.ok, tt.want, tt.wantOK)
		}
	}
}

func fst(s string, _ bool) string { return s }
func snd(_ string, ok bool) bool  { return ok }
