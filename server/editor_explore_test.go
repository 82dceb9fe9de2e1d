package server_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestEditorExplore: the editor's "Explore every ordering" saves the draft
// and opens the explorer on it.
func TestEditorExplore(t *testing.T) {
	t.Parallel()
	h := newTestServer(t)
	page := get(t, h, "/lab?from=old-token-first")
	form := editorForm(t, parsePage(t, page.Body.Bytes()))
	form.Set("p", "fenced")
	rec := postForm(t, h, "/lab/explore", form)
	loc := rec.Header().Get("Location")
	if rec.Code != http.StatusSeeOther || !strings.HasPrefix(loc, "/explore?from=r/") || !strings.HasSuffix(loc, "&p=fenced") {
		t.Fatalf("POST /lab/explore = %d, Location %q; want 303 to /explore?from=r/{id}&p=fenced", rec.Code, loc)
	}
	body := get(t, h, loc).Body.String()
	if !strings.Contains(body, "420 orderings") {
		t.Errorf("GET %s does not explore the 420 orderings of old-token-first", loc)
	}

	form.Set("ev.6.kind", "deliver")
	form.Set("ev.6.request", "nope")
	if rec := postForm(t, h, "/lab/explore", form); rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), "nope") {
		t.Errorf("POST /lab/explore of an invalid draft = %d, want 422 with the error on its card", rec.Code)
	}
}
