package server_test

import (
	"net/http"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"fencelab/views/htmltest"
)

// addFromPalette posts the editor's form with the palette set to the
// given add.FIELD values and the Add button pressed, as a browser without
// JavaScript does, and returns the page the server answers.
func addFromPalette(t *testing.T, s http.Handler, p page, add ...string) page {
	t.Helper()
	f := editorForm(t, p)
	for _, kv := range add {
		k, v, _ := strings.Cut(kv, "=")
		f.Set("add."+k, v)
	}
	f.Set("op", "add")
	return editorPage(t, s, http.MethodPost, "/lab", f, http.StatusOK)
}

// control is the form control named name, or nil.
func (p page) control(name string) *html.Node {
	return htmltest.Find(p.root, func(e *html.Node) bool { return htmltest.Attr(e, "name") == name && e.Data != "button" })
}

// TestEditorSplitBrainFromTheForm builds the split-brain lesson from a
// blank editor with the palette alone, its split checkbox included, and
// replays it under cas, fenced and unfenced: B's split grant leaves A's
// lease valid, so cas (no rmw) and unfenced accept A's last write, while
// fenced rejects it (41 < 42).
func TestEditorSplitBrainFromTheForm(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	p := editorPage(t, s, http.MethodGet, "/lab", nil, http.StatusOK)
	if box := p.control("add.split"); box == nil || htmltest.Attr(box, "type") != "checkbox" {
		t.Fatalf("GET /lab: the palette has no split checkbox")
	}
	for _, add := range [][]string{
		{"kind=acquire", "actor=A"},
		{"kind=write", "actor=A", "value=plan A1"},
		{"kind=acquire", "actor=B", "split=true"},
		{"kind=check", "actor=A"},
		{"kind=write", "actor=B", "value=plan B1"},
		{"kind=write", "actor=A", "value=plan A2"},
	} {
		p = addFromPalette(t, s, p, add...)
	}
	box := p.control("ev.3.split")
	if _, on := attrOK(box, "checked"); box == nil || !on || htmltest.Attr(box, "type") != "checkbox" {
		t.Fatalf("after adding a split acquire: ev.3.split = %v, want a checked checkbox", box)
	}
	if box := p.control("ev.1.split"); box == nil {
		t.Errorf("card 1 (acquire) has no split checkbox")
	} else if _, on := attrOK(box, "checked"); on {
		t.Errorf("card 1 (acquire) is split, want the palette's split cleared after the add")
	}
	f := editorForm(t, p)
	f.Set("scope.1.first_token", "41")
	f["p"] = []string{"unfenced", "fenced", "cas"}
	f.Set("op", "run")
	p = editorPage(t, s, http.MethodPost, "/lab", f, http.StatusOK)
	if got := p.columns(); strings.Join(got, " ") != "unfenced fenced cas" {
		t.Fatalf("Run with p=unfenced,fenced,cas: columns %q", got)
	}
	for _, tt := range []struct {
		step           int
		policy, decide string
	}{
		{3, "cas", "granted"},
		{3, "fenced", "granted"},
		{6, "cas", "accepted"},
		{6, "unfenced", "accepted"},
		{6, "fenced", "rejected"},
	} {
		if got := p.cell(t, tt.step, tt.policy); !strings.Contains(got, tt.decide) {
			t.Errorf("split brain from the form: step %d under %s = %q, want %s", tt.step, tt.policy, got, tt.decide)
		}
	}
	if got := p.cell(t, 3, "fenced"); !strings.Contains(got, "split brain") {
		t.Errorf("step 3 under fenced = %q, want its reason to say split brain", got)
	}
	if got := p.verdict(t, "cas"); !strings.Contains(got, "plan A2") {
		t.Errorf("cas verdict %q, want result to end as plan A2", got)
	}
	if got := p.verdict(t, "fenced"); !strings.Contains(got, "plan B1") {
		t.Errorf("fenced verdict %q, want result to end as plan B1", got)
	}
}

// TestEditorModel3Options posts lease-service-forgets with its scope made
// durable, as the scopes' remember select does: B's acquire after the
// restart is then refused. A restart that names nothing gets the engine's
// error on its one select, and the resource's keys and tokens keep what
// was chosen.
func TestEditorModel3Options(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	p := editorPage(t, s, http.MethodGet, "/lab?from=lease-service-forgets", nil, http.StatusOK)
	f := editorForm(t, p)
	if got := f.Get("scope.1.remember"); got != "memory" {
		t.Fatalf("GET /lab?from=lease-service-forgets: scope.1.remember = %q, want memory", got)
	}
	if got := f.Get("ev.5.restarts"); got != "scope:job" {
		t.Fatalf("GET /lab?from=lease-service-forgets: ev.5.restarts = %q, want scope:job", got)
	}
	for _, name := range []string{"ev.4.rmw", "ev.8.rmw", "ev.9.rmw"} {
		if got := f.Get(name); got != "true" {
			t.Errorf("GET /lab?from=lease-service-forgets: %s = %q, want a checked rmw", name, got)
		}
	}
	if got := p.cell(t, 6, "fenced"); !strings.Contains(got, "granted") {
		t.Errorf("as written, step 6 under fenced = %q, want granted", got)
	}

	f.Set("scope.1.remember", "")
	f.Set("resource.1.keys", "memory")
	f.Set("resource.1.tokens", "per-scope")
	f.Set("op", "run")
	p = editorPage(t, s, http.MethodPost, "/lab", f, http.StatusOK)
	if got := p.cell(t, 6, "fenced"); !strings.Contains(got, "refused") {
		t.Errorf("with a durable scope, step 6 under fenced = %q, want refused", got)
	}
	back := editorForm(t, p)
	for name, want := range map[string]string{"scope.1.remember": "", "resource.1.keys": "memory", "resource.1.tokens": "per-scope"} {
		if got := back.Get(name); got != want {
			t.Errorf("after Run: %s = %q, want %q", name, got, want)
		}
	}

	back.Set("ev.5.restarts", "")
	back.Set("op", "run")
	p = editorPage(t, s, http.MethodPost, "/lab", back, http.StatusOK)
	sel := p.control("ev.5.restarts")
	if sel == nil || htmltest.Attr(sel, "aria-invalid") != "true" || htmltest.Attr(sel, "aria-describedby") != "ev-5-restarts-err" {
		t.Fatalf("a restart of nothing: ev.5.restarts = %v, want it marked invalid", sel)
	}
	if msg := htmltest.Find(p.root, func(e *html.Node) bool { return htmltest.Attr(e, "id") == "ev-5-restarts-err" }); msg == nil ||
		!strings.Contains(htmltest.Text(msg), "restart needs a resource") {
		t.Errorf("a restart of nothing: no engine message on its select")
	}
}

// TestEditorRestartFromPalette adds a restart of a scope with the
// palette's what-restarts select, without JavaScript.
func TestEditorRestartFromPalette(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	p := editorPage(t, s, http.MethodGet, "/lab", nil, http.StatusOK)
	p = addFromPalette(t, s, p, "kind=restart", "restarts=scope:job")
	p = addFromPalette(t, s, p, "kind=restart", "restarts=")
	f := editorForm(t, p)
	if got := f.Get("ev.1.restarts"); got != "scope:job" {
		t.Errorf("a restart added with restarts=scope:job: ev.1.restarts = %q", got)
	}
	if got := f.Get("ev.2.restarts"); got != "resource:result" {
		t.Errorf("a restart added with the default: ev.2.restarts = %q, want the first resource", got)
	}
	if f.Has("ev.1.resource") || f.Has("ev.1.scope") {
		t.Errorf("a restart's card has separate resource or scope controls: %v", f)
	}
	focused := htmltest.Find(p.root, func(e *html.Node) bool { _, ok := attrOK(e, "autofocus"); return ok })
	if focused == nil || htmltest.Attr(focused, "id") != "ev-2-restarts" {
		t.Errorf("after adding a restart: autofocus on %v, want ev-2-restarts", focused)
	}
}
