package views_test

import (
	"testing"

	"fencelab/lab"
	"fencelab/views"
)

func TestPaths(t *testing.T) {
	t.Parallel()
	tests := []struct{ got, want string }{
		{views.ScenarioPath("paused-worker"), "/scenarios/paused-worker"},
		{views.RunPath("AbC123"), "/r/AbC123"},
		{views.RunPath("a/b?c"), "/r/a%2Fb%3Fc"},
		{views.JoinPath("K7Q"), "/join/K7Q"},
		{views.Link("/lab", "", nil), "/lab"},
		{views.Link("/lab", "r/AbC123", nil), "/lab?from=r/AbC123"},
		{views.Link("/explore", "r/AbC123", []lab.Policy{lab.Fenced, lab.FencedRacy}), "/explore?from=r/AbC123&p=fenced&p=fenced-racy"},
		{views.Link("/r/x", "", []lab.Policy{lab.Unfenced}), "/r/x?p=unfenced"},
		{views.Link("/lab", "a&p=x#y", nil), "/lab?from=a%26p%3Dx%23y"},
		{views.Fragment("ordering-3"), "#ordering-3"},
		{views.ScenarioPNGPath("paused-worker"), "/scenarios/paused-worker.png"},
		{views.APIScenarioPath("a b/c"), "/api/scenarios/a%20b%2Fc"},
		{views.RunFullPNGPath("x", lab.FencedRacy), "/r/x.png?size=full&d=fenced-racy"},
		{views.OEmbedPath("https://lab.example/r/x?p=fenced"), "/oembed?format=json&url=https%3A%2F%2Flab.example%2Fr%2Fx%3Fp%3Dfenced"},
		{views.JoinAnswerPath("K/7"), "/join/K%2F7/answer"},
		{views.RoomRevealPath("r1"), "/rooms/r1/reveal"},
		{views.PresentPathOf(views.RunPath("x")), "/r/x/present"},
		{views.Link(views.ExplorePath(), views.RunFrom("AbC123"), nil), "/explore?from=r/AbC123"},
		{views.StaticPath("no/such.css"), "/static/no/such.css"},
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
		{"views.CutScenarioPath(/scenarios/x)", fst(views.CutScenarioPath("/scenarios/x")), snd(views.CutScenarioPath("/scenarios/x")), "x", true},
		{"views.CutScenarioPath(/r/x)", fst(views.CutScenarioPath("/r/x")), snd(views.CutScenarioPath("/r/x")), "/r/x", false},
		{"views.CutRunPath(/r/AbC)", fst(views.CutRunPath("/r/AbC")), snd(views.CutRunPath("/r/AbC")), "AbC", true},
		{"views.CutRunFrom(r/AbC)", fst(views.CutRunFrom("r/AbC")), snd(views.CutRunFrom("r/AbC")), "AbC", true},
		{"views.CutRunFrom(paused-worker)", fst(views.CutRunFrom("paused-worker")), snd(views.CutRunFrom("paused-worker")), "paused-worker", false},
	}
	for _, tt := range tests {
		if tt.got != tt.want || tt.ok != tt.wantOK {
			t.Errorf("%s = %q, %v, want %q, %v", tt.call, tt.got, tt.ok, tt.want, tt.wantOK)
		}
	}
}

func fst(s string, _ bool) string { return s }
func snd(_ string, ok bool) bool  { return ok }
