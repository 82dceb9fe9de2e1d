package paths_test

import (
	"testing"

	"fencelab/lab"
	"fencelab/static"
	"fencelab/views/paths"
)

func TestPaths(t *testing.T) {
	t.Parallel()
	tests := []struct{ got, want string }{
		{paths.ScenarioPath("paused-worker"), "/scenarios/paused-worker"},
		{paths.RunPath("AbC123"), "/r/AbC123"},
		{paths.RunPath("a/b?c"), "/r/a%2Fb%3Fc"},
		{paths.JoinPath("K7Q"), "/join/K7Q"},
		{paths.Link("/lab", "", nil), "/lab"},
		{paths.Link("/lab", "r/AbC123", nil), "/lab?from=r/AbC123"},
		{paths.Link("/explore", "r/AbC123", []lab.Policy{lab.Fenced, lab.FencedRacy}), "/explore?from=r/AbC123&p=fenced&p=fenced-racy"},
		{paths.Link("/r/x", "", []lab.Policy{lab.Unfenced}), "/r/x?p=unfenced"},
		{paths.Link("/lab", "a&p=x#y", nil), "/lab?from=a%26p%3Dx%23y"},
		{paths.Fragment("ordering-3"), "#ordering-3"},
		{paths.ScenarioPNGPath("paused-worker"), "/scenarios/paused-worker.png"},
		{paths.APIScenarioPath("a b/c"), "/api/scenarios/a%20b%2Fc"},
		{paths.RunFullPNGPath("x", lab.FencedRacy), "/r/x.png?size=full&d=fenced-racy"},
		{paths.OEmbedPath("https://lab.example/r/x?p=fenced"), "/oembed?format=json&url=https%3A%2F%2Flab.example%2Fr%2Fx%3Fp%3Dfenced"},
		{paths.JoinAnswerPath("K/7"), "/join/K%2F7/answer"},
		{paths.RoomRevealPath("r1"), "/rooms/r1/reveal"},
		{paths.PresentPathOf(paths.RunPath("x")), "/r/x/present"},
		{paths.Link(paths.RouteExplore, paths.RunFrom("AbC123"), nil), "/explore?from=r/AbC123"},
		{paths.FromPage(paths.RunFrom("AbC123")), "/r/AbC123"},
		{paths.FromPage("paused-worker"), "/scenarios/paused-worker"},
		{paths.FromPage("a b"), "/scenarios/a%20b"},
		{paths.FromPage(""), ""},
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
		{"paths.CutScenarioPath(/scenarios/x)", fst(paths.CutScenarioPath("/scenarios/x")), snd(paths.CutScenarioPath("/scenarios/x")), "x", true},
		{"paths.CutScenarioPath(/r/x)", fst(paths.CutScenarioPath("/r/x")), snd(paths.CutScenarioPath("/r/x")), "/r/x", false},
		{"paths.CutRunPath(/r/AbC)", fst(paths.CutRunPath("/r/AbC")), snd(paths.CutRunPath("/r/AbC")), "AbC", true},
		{"paths.CutRunFrom(r/AbC)", fst(paths.CutRunFrom("r/AbC")), snd(paths.CutRunFrom("r/AbC")), "AbC", true},
		{"paths.CutRunFrom(paused-worker)", fst(paths.CutRunFrom("paused-worker")), snd(paths.CutRunFrom("paused-worker")), "paused-worker", false},
	}
	for _, tt := range tests {
		if tt.got != tt.want || tt.ok != tt.wantOK {
			t.Errorf("%s = %q, %v, want %q, %v", tt.call, tt.got, tt.ok, tt.want, tt.wantOK)
		}
	}
}

func fst(s string, _ bool) string { return s }
func snd(_ string, ok bool) bool  { return ok }

// TestStaticRoute: the static files' route is where static serves them;
// the pattern is spelled here so that the probe and the CLI, which import
// these paths, do not embed the site's files.
func TestStaticRoute(t *testing.T) {
	t.Parallel()
	if want := static.Prefix + "*"; paths.RouteStatic != want {
		t.Errorf("RouteStatic = %q, want %q", paths.RouteStatic, want)
	}
}
