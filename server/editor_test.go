package server_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"fencelab/views/htmltest"
	"fencelab/views/paths"

	"golang.org/x/net/html"
)

// editorForm is what a browser would post from the editor's form: the
// text, hidden and checked inputs, each select's chosen option and the
// textareas; no buttons.
func editorForm(t testing.TB, p page) url.Values {
	t.Helper()
	f := htmltest.Find(p.root, func(e *html.Node) bool { return e.Data == "form" && htmltest.Attr(e, "id") == "editor" })
	if f == nil {
		t.Fatal("no form#editor")
	}
	v := url.Values{}
	for _, e := range htmltest.FindAll(f, func(e *html.Node) bool { return htmltest.Attr(e, "name") != "" }) {
		name := htmltest.Attr(e, "name")
		switch e.Data {
		case "input":
			typ := htmltest.Attr(e, "type")
			if typ == "checkbox" || typ == "radio" {
				if _, on := attrOK(e, "checked"); on {
					v.Add(name, htmltest.Attr(e, "value"))
				}
			} else if typ != "submit" {
				v.Add(name, htmltest.Attr(e, "value"))
			}
		case "textarea":
			v.Add(name, htmltest.Text(e))
		case "select":
			opts := htmltest.FindAll(e, func(o *html.Node) bool { return o.Data == "option" })
			chosen := opts[0]
			for _, o := range opts {
				if _, on := attrOK(o, "selected"); on {
					chosen = o
				}
			}
			v.Add(name, htmltest.Attr(chosen, "value"))
		}
	}
	return v
}

// editorPage gets (form nil) or posts an editor page and parses it.
func editorPage(t *testing.T, s http.Handler, method, target string, form url.Values, status int) page {
	t.Helper()
	rec := get
	if method == http.MethodPost {
		rec = func(t *testing.T, h http.Handler, target string) *httptest.ResponseRecorder {
			return postForm(t, h, target, form)
		}
	}
	r := rec(t, s, target)
	checkResponse(t, method+" "+target, r, status, htmlType)
	return parsePage(t, r.Body.Bytes())
}

// cards lists each card's actor and kind, as "A write".
func (p page) cards() []string {
	var out []string
	for _, li := range htmltest.FindAll(p.root, func(e *html.Node) bool { return e.Data == "li" && htmltest.HasClass(e, "ev-card") }) {
		h := htmltest.Find(li, func(e *html.Node) bool { return htmltest.HasClass(e, "ev-title") })
		out = append(out, strings.TrimSpace(strings.TrimPrefix(htmltest.Text(h), "Event "+strings.TrimPrefix(htmltest.Attr(li, "id"), "ev-")+":")))
	}
	return out
}

func TestEditorPages(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	blank := editorPage(t, s, http.MethodGet, "/lab", nil, http.StatusOK)
	if n := len(blank.cards()); n != 0 {
		t.Errorf("GET /lab: %d cards, want a blank timeline", n)
	}
	if f := editorForm(t, blank); f.Get("title") != "" || f.Get("actor.1.name") != "A" || f.Get("actor.2.name") != "B" {
		t.Errorf("GET /lab: form %v, want an empty title (its placeholder shows the default) and actors A and B", f)
	}
	if in := htmltest.Find(blank.root, func(e *html.Node) bool { return htmltest.Attr(e, "name") == "title" }); in == nil || htmltest.Attr(in, "placeholder") != "A new timeline" {
		t.Errorf("GET /lab: the title field has no placeholder %q", "A new timeline")
	}

	p := editorPage(t, s, http.MethodGet, "/lab?from=paused-worker", nil, http.StatusOK)
	want := []string{"A acquire", "A read", "A pause", "A expire", "B acquire", "B write", "A resume", "A write"}
	if got := p.cards(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("GET /lab?from=paused-worker: cards %q, want %q", got, want)
	}
	checkPausedWorker(t, p)
	f := editorForm(t, p)
	if f.Get("scope.1.first_token") != "41" || f.Get("ev.8.value") != "old-result" || f.Get("ev.1.scope") != "" {
		t.Errorf("GET /lab?from=paused-worker: form %v, want first token 41, step 8 writing old-result and no scope repeated", f)
	}

	save := postForm(t, s, "/runs", url.Values{"scenario": {builtinSource(t, "old-token-first")}})
	id := strings.TrimPrefix(save.Header().Get("Location"), "/r/")
	run := editorPage(t, s, http.MethodGet, "/lab?from=r/"+id, nil, http.StatusOK)
	if got := run.cards(); len(got) != 7 || got[5] != "A write" {
		t.Errorf("GET /lab?from=r/{id}: cards %q, want old-token-first's seven", got)
	}
	runPage := parsePage(t, get(t, s, paths.RunPath(id)).Body.Bytes())
	if edit := htmltest.Find(runPage.root, func(e *html.Node) bool { return e.Data == "a" && htmltest.Attr(e, "href") == "/lab?from=r/"+id }); edit == nil {
		t.Errorf("GET /r/{id}: no Edit a copy link to /lab?from=r/%s", id)
	}

	for _, target := range []string{"/lab?from=no-such-scenario", "/lab?from=r/AAAAAAAAAAAAAAAA", "/lab?from=r/short"} {
		rec := get(t, s, target)
		checkResponse(t, "GET "+target, rec, http.StatusNotFound, htmlType)
	}
}

// TestEditorWithoutJavaScript drives the editor as a plain form: the
// up buttons reorder on the server, Run replays, Save & share saves.
func TestEditorWithoutJavaScript(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	p := editorPage(t, s, http.MethodGet, "/lab?from=paused-worker", nil, http.StatusOK)
	for _, op := range []string{"up.8", "up.7"} {
		f := editorForm(t, p)
		f.Set("op", op)
		p = editorPage(t, s, http.MethodPost, "/lab", f, http.StatusOK)
	}
	if got := p.cards(); got[5] != "A write" || got[6] != "B write" || got[7] != "A resume" {
		t.Errorf("after up.8, up.7: cards %q, want A's write at 6", got)
	}
	if got := p.verdict(t, "unfenced"); !strings.Contains(got, "result ends as new-result") {
		t.Errorf("after moving A's write up: unfenced verdict %q, want new-result", got)
	}
	focused := htmltest.Find(p.root, func(e *html.Node) bool { _, ok := attrOK(e, "autofocus"); return ok })
	if focused == nil || htmltest.Attr(focused, "id") != "ev-6-up" {
		t.Errorf("after up.7: autofocus on %v, want the moved card's up button ev-6-up", focused)
	}

	f := editorForm(t, p)
	f.Set("op", "run")
	f["p"] = []string{"fenced-strict"}
	p = editorPage(t, s, http.MethodPost, "/lab", f, http.StatusOK)
	if got := p.columns(); len(got) != 1 || got[0] != "fenced-strict" {
		t.Errorf("Run with p=fenced-strict: columns %q", got)
	}

	f = editorForm(t, p)
	f.Set("add.kind", "deliver")
	f.Set("add.request", "nobody")
	f.Set("op", "add")
	p = editorPage(t, s, http.MethodPost, "/lab", f, http.StatusOK)
	card := htmltest.Find(p.root, func(e *html.Node) bool { return e.Data == "li" && htmltest.Attr(e, "id") == "ev-9" })
	if card == nil || !htmltest.HasClass(card, "has-error") || !strings.Contains(htmltest.Text(card), `no send has the id "nobody"`) {
		t.Fatalf("adding a deliver naming no send: card 9 does not show the engine's error")
	}
	input := htmltest.Find(card, func(e *html.Node) bool { return htmltest.Attr(e, "name") == "ev.9.request" })
	if htmltest.Attr(input, "value") != "nobody" || htmltest.Attr(input, "aria-invalid") != "true" || htmltest.Attr(input, "aria-describedby") != "ev-9-request-err" {
		t.Errorf("request field of card 9: %v, want the typed text, marked invalid", input.Attr)
	}

	f = editorForm(t, p)
	rec := postForm(t, s, "/lab/save", f)
	checkResponse(t, "POST /lab/save (invalid)", rec, http.StatusUnprocessableEntity, htmlType)
	f.Set("op", "del.9")
	p = editorPage(t, s, http.MethodPost, "/lab", f, http.StatusOK)
	editorTable := p.table(t)
	rec = postForm(t, s, "/lab/save", editorForm(t, p))
	checkResponse(t, "POST /lab/save", rec, http.StatusSeeOther, htmlType)
	link := rec.Header().Get("Location")
	if !strings.HasPrefix(link, "/r/") || !strings.HasSuffix(link, "?p=fenced-strict") {
		t.Fatalf("POST /lab/save: Location %q, want /r/{id}?p=fenced-strict", link)
	}
	saved := parsePage(t, get(t, s, link).Body.Bytes())
	if got := saved.table(t); got != editorTable {
		t.Errorf("the saved run's table differs from the editor's")
	}
}

func TestEditorPreview(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	f := editorForm(t, editorPage(t, s, http.MethodGet, "/lab?from=delayed-request", nil, http.StatusOK))
	rec := postForm(t, s, "/lab/preview", f)
	checkResponse(t, "POST /lab/preview", rec, http.StatusOK, htmlType)
	body := rec.Body.String()
	if strings.Contains(body, "<html") || !strings.Contains(body, `<table class="steps">`) || !strings.Contains(body, `class="verdict-grid"`) {
		t.Errorf("POST /lab/preview: want the table and verdicts alone, got:\n%.300s", body)
	}
	if !strings.Contains(body, `class="diagram`) {
		t.Errorf("POST /lab/preview: no diagram under the table")
	}
	for k := range f {
		if strings.HasSuffix(k, ".request") && strings.HasPrefix(k, "ev.") {
			f.Set(k, "nobody")
		}
	}
	rec = postForm(t, s, "/lab/preview", f)
	checkResponse(t, "POST /lab/preview (invalid)", rec, http.StatusOK, htmlType)
	p := parsePage(t, rec.Body.Bytes())
	li := htmltest.Find(p.root, func(e *html.Node) bool { return e.Data == "li" && htmltest.Attr(e, "data-control") != "" })
	if li == nil || !strings.HasSuffix(htmltest.Attr(li, "data-control"), ".request") || !strings.Contains(htmltest.Text(li), `no send has the id "nobody"`) {
		t.Errorf("POST /lab/preview (invalid): no error placed on the request field:\n%.600s", rec.Body.String())
	}
}

// TestEditorHostileText shows what a person typed as text, and the editor
// keeps to the CSP: scripts from /static/ only, no inline style.
func TestEditorHostileText(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	f := editorForm(t, editorPage(t, s, http.MethodGet, "/lab?from=paused-worker", nil, http.StatusOK))
	f.Set("title", `<script>alert(1)</script>`)
	f.Set("ev.8.value", `"><img src=x onerror=alert(2)>`)
	f.Set("actor.1.name", `A"><b>`)
	rec := postForm(t, s, "/lab", f)
	checkResponse(t, "POST /lab (hostile)", rec, http.StatusOK, htmlType)
	body := rec.Body.String()
	for _, bad := range []string{"<script>alert", "<img src=x", `"><b>`} {
		if strings.Contains(body, bad) {
			t.Errorf("POST /lab: page contains raw %q", bad)
		}
	}
	p := parsePage(t, rec.Body.Bytes())
	for _, sc := range htmltest.FindAll(p.root, func(e *html.Node) bool { return e.Data == "script" }) {
		if !strings.HasPrefix(htmltest.Attr(sc, "src"), "/static/") {
			t.Errorf("POST /lab: a script not from /static/: %v", sc.Attr)
		}
	}
	bad := htmltest.FindAll(p.root, func(e *html.Node) bool {
		for _, a := range e.Attr {
			if a.Key == "style" || strings.HasPrefix(a.Key, "on") {
				return true
			}
		}
		return e.Data == "style"
	})
	if len(bad) > 0 {
		t.Errorf("POST /lab: %d elements with inline style or handlers, first <%s>", len(bad), bad[0].Data)
	}
	if got := editorForm(t, p).Get("title"); got != `<script>alert(1)</script>` {
		t.Errorf("POST /lab: title field = %q, want it kept as typed", got)
	}
}
