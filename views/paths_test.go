package views

import (
	"testing"

	"fencelab/lab"
)

func TestPaths(t *testing.T) {
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
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}
