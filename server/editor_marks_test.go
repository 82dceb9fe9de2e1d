package server_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"fencelab/views/htmltest"
)

// TestEditorActorNameMarkedOnce renames A to Zoë, which is not a name:
// the error shows once, on the actor's own field, and on none of the
// cards A acts in.
func TestEditorActorNameMarkedOnce(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	p := editorPage(t, s, http.MethodGet, "/lab?from=paused-worker", nil, http.StatusOK)
	form := editorForm(t, p)
	form.Set("actor.1.name", "Zoë")
	p = editorPage(t, s, http.MethodPost, "/lab", form, http.StatusOK)
	errs := htmltest.FindAll(p.root, func(e *html.Node) bool { return htmltest.HasClass(e, "field-error") })
	if len(errs) != 1 || htmltest.Attr(errs[0], "id") != "actor-1-name-err" || !strings.Contains(htmltest.Text(errs[0]), `"Zoë" is not a name`) {
		var got []string
		for _, e := range errs {
			got = append(got, htmltest.Attr(e, "id")+": "+htmltest.Text(e))
		}
		t.Errorf("errors shown: %q, want one, on actor-1-name", got)
	}
	input := htmltest.Find(p.root, func(e *html.Node) bool { return htmltest.Attr(e, "id") == "actor-1-name" })
	if input == nil || htmltest.Attr(input, "aria-invalid") != "true" {
		t.Errorf("the actor's field is not marked invalid")
	}
	if marked := htmltest.FindAll(p.root, func(e *html.Node) bool { return htmltest.HasClass(e, "has-error") }); len(marked) != 0 {
		t.Errorf("%d cards marked as having an error, want none", len(marked))
	}
}

// TestPastedScenarioWithoutEvents: a pasted scenario with no events says
// "nothing to replay yet", as the editor does, instead of an empty table
// and diagram.
func TestPastedScenarioWithoutEvents(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	rec := postForm(t, s, "/replay", url.Values{"scenario": {`{"version":1,"title":"empty","events":[]}`}})
	checkResponse(t, "POST /replay with no events", rec, http.StatusOK, htmlType)
	body := rec.Body.String()
	if !strings.Contains(body, "Nothing to replay yet") {
		t.Errorf("POST /replay with no events does not say there is nothing to replay yet")
	}
	for _, absent := range []string{`<table`, `id="diagram"`} {
		if strings.Contains(body, absent) {
			t.Errorf("POST /replay with no events shows %s", absent)
		}
	}
}
