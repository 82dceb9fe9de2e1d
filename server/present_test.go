package server_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"fencelab/static"
	"fencelab/views/htmltest"
)

// stepLinks are the hrefs of the links in row n's step cell.
func (p page) stepLinks(t *testing.T, n int) []string {
	t.Helper()
	th := htmltest.Find(p.row(t, n), func(e *html.Node) bool { return e.Data == "th" })
	var out []string
	for _, a := range htmltest.FindAll(th, func(e *html.Node) bool { return e.Data == "a" }) {
		out = append(out, htmltest.Attr(a, "href"))
	}
	return out
}

// bands are the data-step attributes of the diagram's bands.
func (p page) bands() []string {
	var out []string
	for _, g := range htmltest.FindAll(p.root, func(e *html.Node) bool { return e.Data == "g" && htmltest.HasClass(e, "band") }) {
		out = append(out, htmltest.Attr(g, "data-step"))
	}
	return out
}

func (p page) has(match func(*html.Node) bool) bool { return htmltest.Find(p.root, match) != nil }

func link(href string) func(*html.Node) bool {
	return func(e *html.Node) bool { return e.Data == "a" && htmltest.Attr(e, "href") == href }
}

// checkPresent checks what a presentation shows without JavaScript: every
// step, each row linking to itself and its neighbours, the diagram with
// one band per step, and the stylesheet and script it needs.
func checkPresent(t *testing.T, call string, p page, steps int) {
	t.Helper()
	for n := 1; n <= steps; n++ {
		var want []string
		if n > 1 {
			want = append(want, fmt.Sprintf("#step-%d", n-1))
		}
		want = append(want, fmt.Sprintf("#step-%d", n))
		if n < steps {
			want = append(want, fmt.Sprintf("#step-%d", n+1))
		}
		if got := p.stepLinks(t, n); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s: row %d links to %v, want %v", call, n, got, want)
		}
	}
	if p.has(func(e *html.Node) bool {
		return e.Data == "tr" && htmltest.Attr(e, "id") == fmt.Sprintf("step-%d", steps+1)
	}) {
		t.Errorf("%s: a row after the last step", call)
	}
	if got := len(p.bands()); got != steps {
		t.Errorf("%s: %d bands in the diagram, want %d", call, got, steps)
	}
	script := htmltest.Find(p.root, func(e *html.Node) bool {
		return e.Data == "script" && htmltest.Attr(e, "src") == static.URL("js/present.js")
	})
	if script == nil {
		t.Fatalf("%s: no /static/js/present.js", call)
	}
	if _, deferred := attrOK(script, "defer"); !deferred {
		t.Errorf("%s: no deferred /static/js/present.js", call)
	}
	for _, css := range []string{static.URL("css/present.css"), static.URL("css/diagram.css")} {
		if !p.has(func(e *html.Node) bool { return e.Data == "link" && htmltest.Attr(e, "href") == css }) {
			t.Errorf("%s: no stylesheet %s", call, css)
		}
	}
}

// TestPresentScenario renders old-token-first for a projector, every step
// on the page, with the diagram's policy and predict mode from the query.
func TestPresentScenario(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	rec := get(t, s, "/scenarios/old-token-first/present")
	checkResponse(t, "GET /scenarios/old-token-first/present", rec, http.StatusOK, htmlType)
	p := parsePage(t, rec.Body.Bytes())
	checkPresent(t, "GET /scenarios/old-token-first/present", p, 7)
	if got, want := p.cell(t, 6, "fenced"), "accepted"; !strings.Contains(got, want) {
		t.Errorf("present row 6 under fenced = %q, want it to contain %q", got, want)
	}
	if !p.has(link("/scenarios/old-token-first?p=unfenced&p=fenced")) {
		t.Errorf("present page: no link back to the scenario page")
	}
	root := htmltest.Find(p.root, func(e *html.Node) bool { return htmltest.HasClass(e, "present") })
	if root == nil {
		t.Fatal("present page: no element of class present")
	}
	if _, predict := attrOK(root, "data-predict"); htmltest.Attr(root, "data-policy") != "fenced" || predict {
		t.Errorf("present page: root %v, want data-policy fenced and no predict mode", root)
	}

	target := "/scenarios/old-token-first/present?p=unfenced&p=authoritative&d=authoritative&predict=1"
	p = parsePage(t, get(t, s, target).Body.Bytes())
	if got, want := p.columns(), []string{"unfenced", "authoritative"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("GET %s: columns %v, want %v", target, got, want)
	}
	root = htmltest.Find(p.root, func(e *html.Node) bool { return htmltest.HasClass(e, "present") })
	if htmltest.Attr(root, "data-policy") != "authoritative" || htmltest.Attr(root, "data-predict") != "1" {
		t.Errorf("GET %s: data-policy %q, data-predict %q", target, htmltest.Attr(root, "data-policy"), htmltest.Attr(root, "data-predict"))
	}
	row := p.row(t, 6)
	if htmltest.Attr(row, "data-answer") != "rejected" || !strings.Contains(htmltest.Attr(row, "data-ask"), "Under authoritative") {
		t.Errorf("GET %s: row 6 asks %q, answer %q; want a question under authoritative, answer rejected",
			target, htmltest.Attr(row, "data-ask"), htmltest.Attr(row, "data-answer"))
	}
	if _, ask := attrOK(p.row(t, 5), "data-ask"); ask {
		t.Errorf("GET %s: row 5 (resume) asks for a guess", target)
	}
	if !p.has(func(e *html.Node) bool { return htmltest.HasClass(e, "predict") }) {
		t.Errorf("GET %s: no predict panel", target)
	}
}

// TestPresentRun renders a saved run for a projector.
func TestPresentRun(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	id := saveRun(t, s, "paused-worker")
	target := "/r/" + id + "/present"
	rec := get(t, s, target)
	checkResponse(t, "GET "+target, rec, http.StatusOK, htmlType)
	p := parsePage(t, rec.Body.Bytes())
	checkPresent(t, "GET "+target, p, 8)
	if got := p.cell(t, 8, "fenced"); !strings.Contains(got, "rejected") || !strings.Contains(got, "41 < 42") {
		t.Errorf("GET %s: row 8 under fenced = %q, want rejected, 41 < 42", target, got)
	}
	if !p.has(link("/r/" + id + "?p=unfenced&p=fenced")) {
		t.Errorf("GET %s: no link back to the run", target)
	}
	if rec := get(t, s, "/scenarios/nope/present"); rec.Code != http.StatusNotFound {
		t.Errorf("GET /scenarios/nope/present: status %d, want 404", rec.Code)
	}
}

// TestDiagramOnPages shows the diagram on scenario and run pages under ?d=
// (default fenced when chosen, else the first chosen), with a switch that
// keeps ?p=, and links to the presentation and the exports.
func TestDiagramOnPages(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	id := saveRun(t, s, "paused-worker")
	tests := []struct {
		target, policy string
		links          []string
	}{
		{"/scenarios/paused-worker", "fenced", []string{
			"/scenarios/paused-worker?d=unfenced&p=unfenced&p=fenced#diagram",
			"/scenarios/paused-worker/present?p=unfenced&p=fenced",
		}},
		{"/scenarios/paused-worker?p=unfenced&p=authoritative&d=fenced-racy", "fenced-racy", []string{
			"/scenarios/paused-worker?p=unfenced&p=authoritative#diagram",
			"/scenarios/paused-worker/present?d=fenced-racy&p=unfenced&p=authoritative",
		}},
		{"/r/" + id + "?p=authoritative", "authoritative", []string{
			"/r/" + id + "?d=fenced&p=authoritative#diagram",
			"/r/" + id + ".md?p=authoritative",
			"/r/" + id + ".json",
			"/r/" + id + ".svg?d=authoritative",
			"/r/" + id + "/present?p=authoritative",
		}},
	}
	for _, tt := range tests {
		rec := get(t, s, tt.target)
		checkResponse(t, "GET "+tt.target, rec, http.StatusOK, htmlType)
		p := parsePage(t, rec.Body.Bytes())
		svg := htmltest.Find(p.root, func(e *html.Node) bool { return e.Data == "svg" && htmltest.HasClass(e, "diagram") })
		if svg == nil || htmltest.Attr(svg, "aria-labelledby") != "diagram-"+tt.policy+"-title" {
			t.Errorf("GET %s: no diagram under %s", tt.target, tt.policy)
		}
		current := htmltest.Find(p.root, func(e *html.Node) bool { return htmltest.HasClass(e, "switch-current") })
		if current == nil || htmltest.Text(current) != tt.policy || htmltest.Attr(current, "aria-current") != "true" {
			t.Errorf("GET %s: the switch does not mark %s as current", tt.target, tt.policy)
		}
		for _, href := range tt.links {
			if !p.has(link(href)) {
				t.Errorf("GET %s: no link to %s", tt.target, href)
			}
		}
		if !p.has(func(e *html.Node) bool {
			return e.Data == "link" && htmltest.Attr(e, "href") == static.URL("css/diagram.css")
		}) {
			t.Errorf("GET %s: diagram.css not linked", tt.target)
		}
	}
}
