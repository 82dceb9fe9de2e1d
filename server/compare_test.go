package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"fencelab/views/htmltest"
	"fencelab/views/paths"
)

// TestCompare sets paused-worker beside a saved copy with two events
// swapped: the page (no script needed) marks the two events, the verdict
// and the steps that differ, its Markdown says the same, the run's page
// links to it, and a side that names nothing is a 404 saying which.
func TestCompare(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	var doc map[string]any
	if err := json.Unmarshal([]byte(builtinSource(t, "paused-worker")), &doc); err != nil {
		t.Fatal(err)
	}
	evs := doc["events"].([]any)
	evs[5], evs[7] = evs[7], evs[5]
	src, _ := json.Marshal(doc)
	rec := postJSON(t, s, "/api/runs", string(src))
	var saved struct{ ID string }
	if err := json.Unmarshal(rec.Body.Bytes(), &saved); err != nil || saved.ID == "" {
		t.Fatalf("POST /api/runs: %d %s", rec.Code, rec.Body.String())
	}
	path := paths.ComparePath("paused-worker", paths.RunFrom(saved.ID))
	pg := editorPage(t, s, http.MethodGet, path, nil, http.StatusOK)
	rows := func() []string {
		var out []string
		for _, tr := range htmltest.FindAll(pg.root, func(e *html.Node) bool { return e.Data == "tr" && htmltest.HasClass(e, "differs") }) {
			out = append(out, htmltest.Text(tr))
		}
		return out
	}
	differ := rows()
	if len(differ) != 1+2+2 { // the unfenced verdict, events 6 and 8, steps 6 and 8
		t.Errorf("GET %s: %d rows marked as differing, want 5: %q", path, len(differ), differ)
	}
	if sum := htmltest.Text(htmltest.Find(pg.root, func(e *html.Node) bool { return htmltest.HasClass(e, "compare-summary") })); !strings.Contains(sum, "2 events of 8") {
		t.Errorf("GET %s: summary %q", path, sum)
	}
	md := get(t, s, paths.CompareMarkdownPath("paused-worker", paths.RunFrom(saved.ID)))
	if md.Code != http.StatusOK || strings.Count(md.Body.String(), "≠") != 5 {
		t.Errorf("GET the comparison's Markdown: %d, %d rows marked ≠, want 5:\n%s", md.Code, strings.Count(md.Body.String(), "≠"), md.Body.String())
	}
	run := get(t, s, paths.RunPath(saved.ID))
	if !strings.Contains(run.Body.String(), `action="/compare"`) || !strings.Contains(run.Body.String(), `name="a" value="r/`+saved.ID+`"`) {
		t.Errorf("the run's page has no form to compare it with another")
	}
	bad := get(t, s, paths.ComparePath("paused-worker", "no-such-thing"))
	if bad.Code != http.StatusNotFound || !strings.Contains(bad.Body.String(), "B (no-such-thing) names no built-in scenario and no saved run") {
		t.Errorf("GET /compare with an unknown B: %d, want 404 naming B", bad.Code)
	}
	if form := get(t, s, paths.ComparePath("", "")); form.Code != http.StatusOK || !strings.Contains(form.Body.String(), `id="compare-a"`) {
		t.Errorf("GET /compare alone: %d, want the form", form.Code)
	}
}
