package server_test

import (
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"fencelab/lab"
	"fencelab/lab/draft"
	"fencelab/views/htmltest"
)

// TestEditorScriptData: the editor's form gives its script the op
// templates, the run verb and the default policies as data, and every
// card button's value is the op its data-op verb makes for its step.
func TestEditorScriptData(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	p := editorPage(t, s, http.MethodGet, "/lab?from=paused-worker", nil, http.StatusOK)
	form := htmltest.Find(p.root, func(e *html.Node) bool { return e.Data == "form" && htmltest.Attr(e, "id") == "editor" })
	defaults := make([]string, 0, 2)
	for _, q := range lab.DefaultPolicies() {
		defaults = append(defaults, string(q))
	}
	want := map[string]string{
		"data-op-template":      draft.OpTemplate,
		"data-add-op-template":  draft.AddOpTemplate,
		"data-run-op":           string(draft.Run),
		"data-default-policies": strings.Join(defaults, " "),
	}
	for k, v := range want {
		if got := htmltest.Attr(form, k); got != v {
			t.Errorf("GET /lab: form#editor %s = %q, want %q", k, got, v)
		}
	}
	buttons := htmltest.FindAll(form, func(e *html.Node) bool { return htmltest.Attr(e, "data-op") != "" })
	if len(buttons) != 4*8 {
		t.Errorf("GET /lab?from=paused-worker: %d card buttons with data-op, want 32", len(buttons))
	}
	for _, b := range buttons {
		card := strings.TrimSuffix(htmltest.Attr(b, "id"), "-"+htmltest.Attr(b, "data-op"))
		n := strings.TrimPrefix(card, "ev-")
		fill := strings.NewReplacer("{verb}", htmltest.Attr(b, "data-op"), "{n}", n)
		if got, want := htmltest.Attr(b, "value"), fill.Replace(draft.OpTemplate); got != want {
			t.Errorf("button %s: value %q, want %q", htmltest.Attr(b, "id"), got, want)
		}
	}
}

// TestEditorScriptSpellsNoPolicyOrVerb: editor.js gets policies and verbs
// from the page, so renaming one in lab changes nothing there.
func TestEditorScriptSpellsNoPolicyOrVerb(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../static/js/editor.js")
	if err != nil {
		t.Fatal(err)
	}
	js := string(b)
	for _, p := range lab.Policies() {
		if regexp.MustCompile(`(^|[^a-z-])` + regexp.QuoteMeta(string(p)) + `([^a-z-]|$)`).MatchString(js) {
			t.Errorf("static/js/editor.js names policy %s: read it from the page's data instead", p)
		}
	}
	for _, v := range draft.Verbs() {
		for _, q := range []string{`"`, `'`} {
			if w := string(v); strings.Contains(js, q+w+q) || strings.Contains(js, q+w+".") {
				t.Errorf("static/js/editor.js spells the verb %s%s%s: read it from the page's data instead", q, w, q)
			}
		}
	}
}
