package server_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"fencelab/views/paths"
)

// TestFromAnswersAlike: the editor, the explorer, its card, its API and
// the comparison read a from= the same way: a built-in by name, a saved
// run as r/ID, and each of the others is the same 404 everywhere.
func TestFromAnswersAlike(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	rec := postJSON(t, s, paths.RouteAPIRuns, builtinSource(t, "old-token-first"))
	var saved struct{ ID string }
	if err := json.Unmarshal(rec.Body.Bytes(), &saved); err != nil || saved.ID == "" {
		t.Fatalf("POST %s = %d %s", paths.RouteAPIRuns, rec.Code, rec.Body)
	}
	tools := map[string]func(from string) (method, target string){
		"editor":   func(f string) (string, string) { return http.MethodGet, paths.Link(paths.RouteEditor, f, nil) },
		"explorer": func(f string) (string, string) { return http.MethodGet, paths.Link(paths.RouteExplore, f, nil) },
		"card":     func(f string) (string, string) { return http.MethodGet, paths.ExploreCardPath(f) },
		"api":      func(f string) (string, string) { return http.MethodPost, paths.Link(paths.RouteAPIExplore, f, nil) },
		"compare":  func(f string) (string, string) { return http.MethodGet, paths.ComparePath(f, "paused-worker") },
	}
	tests := []struct {
		from string
		want int
	}{
		{"old-token-first", http.StatusOK},
		{paths.RunFrom(saved.ID), http.StatusOK},
		{"no-such-scenario", http.StatusNotFound},
		{paths.RunFrom("AAAAAAAAAAAAAAAA"), http.StatusNotFound},
		{paths.RunFrom("short"), http.StatusNotFound},
		{"r", http.StatusNotFound},
	}
	for _, tt := range tests {
		for name, target := range tools {
			method, link := target(tt.from)
			if rec := do(t, s, method, link, "", nil); rec.Code != tt.want {
				t.Errorf("%s of from=%q: %s %s = %d, want %d", name, tt.from, method, link, rec.Code, tt.want)
			}
		}
	}
}
