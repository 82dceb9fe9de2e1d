package server_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"fencelab/static"
	"fencelab/views/htmltest"
)

func TestPages(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	tests := []struct {
		name        string
		target      string
		status      int
		contentType string
		contains    []string
	}{
		{"home", "/", http.StatusOK, htmlType, []string{
			`href="/scenarios/paused-worker"`, "The lease ended before the process stopped",
			`<form class="scenario-form" method="post" action="/replay">`, `href="/lab"`,
		}},
		{"scenario", "/scenarios/paused-worker", http.StatusOK, htmlType, []string{
			`<table class="steps">`, `id="step-8"`, `action="/runs"`,
			`href="/lab?from=paused-worker"`, `href="/api/scenarios/paused-worker"`, "Save &amp; share",
		}},
		{"unknown scenario", "/scenarios/no-such-thing", http.StatusNotFound, htmlType, []string{
			"Not found", "no built-in scenario",
		}},
		{"unknown page", "/nowhere", http.StatusNotFound, htmlType, []string{"Not found", `class="site-header"`}},
		{"stylesheet", "/static/css/site.css", http.StatusOK, "text/css; charset=utf-8", []string{".steps"}},
		{"script", "/static/js/site.js", http.StatusOK, "text/javascript; charset=utf-8", []string{"data-copy"}},
		{"static directory", "/static/css/", http.StatusNotFound, htmlType, nil},
		{"static escape", "/static/../server.go", http.StatusNotFound, htmlType, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := get(t, s, tt.target)
			call := "GET " + tt.target
			checkResponse(t, call, rec, tt.status, tt.contentType)
			for _, want := range tt.contains {
				if !strings.Contains(rec.Body.String(), want) {
					t.Errorf("%s: body lacks %q", call, want)
				}
			}
		})
	}
}

// TestHead answers HEAD where GET reads, without a body.
func TestHead(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	for _, target := range []string{"/", "/scenarios/paused-worker", "/api/scenarios", "/static/css/site.css"} {
		rec := do(t, s, http.MethodHead, target, "", nil)
		if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") == "" {
			t.Errorf("HEAD %s: status %d, Content-Type %q", target, rec.Code, rec.Header().Get("Content-Type"))
		}
	}
}

// TestPausedWorkerTable checks what the lab is for: unfenced ends on the
// stale value, fenced on the new one, because fenced rejects step 8.
func TestPausedWorkerTable(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	rec := get(t, s, "/scenarios/paused-worker")
	checkResponse(t, "GET /scenarios/paused-worker", rec, http.StatusOK, htmlType)
	p := parsePage(t, rec.Body.Bytes())
	checkPausedWorker(t, p)
}

func checkPausedWorker(t *testing.T, p page) {
	t.Helper()
	if got, want := p.columns(), []string{"unfenced", "fenced"}; !slices.Equal(got, want) {
		t.Errorf("policy columns = %q, want %q", got, want)
	}
	cells := []struct {
		step         int
		policy, want string
	}{
		{6, "unfenced", "accepted"},
		{6, "fenced", "accepted"},
		{8, "unfenced", "accepted"},
		{8, "unfenced", "result = old-result token 41"},
		{8, "unfenced", "violates stale-overwrite"},
		{8, "fenced", "rejected"},
		{8, "fenced", "41 < 42"},
		{8, "fenced", "result = new-result token 42"},
	}
	for _, c := range cells {
		if got := p.cell(t, c.step, c.policy); !strings.Contains(got, c.want) {
			t.Errorf("row %d under %s = %q, want it to contain %q", c.step, c.policy, got, c.want)
		}
	}
	if !htmltest.HasClass(p.row(t, 8), "disagree") || htmltest.HasClass(p.row(t, 7), "disagree") {
		t.Errorf("row 8 should be marked as disagreeing, row 7 not")
	}
	if got := p.cell(t, 8, "Actor"); got != "A" {
		t.Errorf("row 8 actor = %q, want A", got)
	}
	verdicts := []struct{ policy, want string }{
		{"unfenced", "result ends as old-result token 41"},
		{"unfenced", "step 8: stale-overwrite"},
		{"fenced", "result ends as new-result token 42"},
		{"fenced", "No invariant violated"},
	}
	for _, v := range verdicts {
		if got := p.verdict(t, v.policy); !strings.Contains(got, v.want) {
			t.Errorf("verdict of %s = %q, want it to contain %q", v.policy, got, v.want)
		}
	}
	link := htmltest.Find(p.root, func(e *html.Node) bool {
		return e.Data == "a" && htmltest.Attr(e, "href") == "#step-8" && htmltest.Text(e) == "step 8"
	})
	if link == nil {
		t.Errorf("no violation links to #step-8")
	}
}

func TestPolicyChoiceInQuery(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	tests := []struct {
		query string
		want  []string
	}{
		{"", []string{"unfenced", "fenced"}},
		{"?p=fenced-strict&p=unfenced", []string{"unfenced", "fenced-strict"}},
		{"?p=authoritative", []string{"authoritative"}},
		{"?p=no-such-policy", []string{"unfenced", "fenced"}},
		{"?p=fenced-racy&p=fenced-racy&p=bogus", []string{"fenced-racy"}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			rec := get(t, s, "/scenarios/paused-worker"+tt.query)
			p := parsePage(t, rec.Body.Bytes())
			if got := p.columns(); !slices.Equal(got, tt.want) {
				t.Errorf("GET %s: columns = %q, want %q", tt.query, got, tt.want)
			}
			var checked []string
			for _, in := range htmltest.FindAll(p.root, func(e *html.Node) bool { return e.Data == "input" && htmltest.Attr(e, "name") == "p" }) {
				if _, on := attrOK(in, "checked"); on {
					checked = append(checked, htmltest.Attr(in, "value"))
				}
			}
			if !slices.Equal(checked, tt.want) {
				t.Errorf("GET %s: checked boxes = %q, want %q", tt.query, checked, tt.want)
			}
		})
	}
}

func attrOK(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

// TestReplayPage replays a pasted scenario; nothing is saved.
func TestReplayPage(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	form := url.Values{"scenario": {builtinSource(t, "paused-worker")}}
	rec := postForm(t, s, "/replay", form)
	checkResponse(t, "POST /replay", rec, http.StatusOK, htmlType)
	p := parsePage(t, rec.Body.Bytes())
	checkPausedWorker(t, p)

	form.Add("p", "fenced-strict")
	rec = postForm(t, s, "/replay", form)
	if got := parsePage(t, rec.Body.Bytes()).columns(); !slices.Equal(got, []string{"fenced-strict"}) {
		t.Errorf("POST /replay with p=fenced-strict: columns = %q", got)
	}
}

// TestHostileText shows titles, notes and values with HTML as text, on the
// replay page and on the saved run.
func TestHostileText(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	hostile := `{"version":1,"title":"<script>alert(1)</script>",
		"description":"<img src=x onerror=alert(2)>",
		"events":[{"actor":"A","kind":"acquire","note":"<b onclick=alert(3)>bold</b>"},
		          {"actor":"A","kind":"write","value":"\"><script>alert(4)</script>"}]}`
	replay := postForm(t, s, "/replay", url.Values{"scenario": {hostile}})
	checkResponse(t, "POST /replay (hostile)", replay, http.StatusOK, htmlType)
	save := postForm(t, s, "/runs", url.Values{"scenario": {hostile}})
	checkResponse(t, "POST /runs (hostile)", save, http.StatusSeeOther, htmlType)
	run := get(t, s, save.Header().Get("Location"))
	checkResponse(t, "GET saved hostile run", run, http.StatusOK, htmlType)

	for name, body := range map[string]string{"replay page": replay.Body.String(), "run page": run.Body.String()} {
		for _, bad := range []string{"<script>alert", "<img src=x", "<b onclick", "onerror=alert(2)>"} {
			if strings.Contains(body, bad) {
				t.Errorf("%s contains raw %q", name, bad)
			}
		}
		p := parsePage(t, []byte(body))
		h1 := htmltest.Find(p.root, func(e *html.Node) bool { return e.Data == "h1" })
		if h1 == nil || htmltest.Text(h1) != "<script>alert(1)</script>" {
			t.Errorf("%s: h1 does not show the title as text", name)
		}
		scripts := htmltest.FindAll(p.root, func(e *html.Node) bool { return e.Data == "script" })
		if len(scripts) != 1 || htmltest.Attr(scripts[0], "src") != static.URL("js/site.js") {
			t.Errorf("%s: want exactly one script, from /static/; got %d", name, len(scripts))
		}
		if got := p.cell(t, 2, "unfenced"); !strings.Contains(got, `"><script>alert(4)</script>`) {
			t.Errorf("%s: value cell = %q, want the value as text", name, got)
		}
	}
}

// TestNoInlineStyle keeps the pages within the CSP: no style attributes or
// elements, no inline handlers.
func TestNoInlineStyle(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	save := postForm(t, s, "/runs", url.Values{"scenario": {builtinSource(t, "paused-worker")}})
	targets := []string{"/", "/scenarios/paused-worker", "/scenarios/forgetful-receiver", save.Header().Get("Location"), "/nowhere"}
	for _, target := range targets {
		p := parsePage(t, get(t, s, target).Body.Bytes())
		bad := htmltest.FindAll(p.root, func(e *html.Node) bool {
			if e.Data == "style" {
				return true
			}
			for _, a := range e.Attr {
				if a.Key == "style" || strings.HasPrefix(a.Key, "on") {
					return true
				}
			}
			return e.Data == "script" && htmltest.Attr(e, "src") == ""
		})
		if len(bad) > 0 {
			t.Errorf("GET %s: %d elements with inline style or script, first <%s>", target, len(bad), bad[0].Data)
		}
	}
}
