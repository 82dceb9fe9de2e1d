package server_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"golang.org/x/net/html"

	"fencelab/lab"
	"fencelab/server"
	"fencelab/static"
	"fencelab/views/htmltest"
)

// newExploreServer is a server on the shared database whose explorations
// have the given bounds and hook.
func newExploreServer(t *testing.T, cfg server.ExploreConfig) *server.Server {
	t.Helper()
	db, _ := sharedDB(t)
	s, err := server.New(server.Config{
		Store: db, Library: testLibrary(t), Secret: testSecret,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Explore: cfg,
	})
	if err != nil {
		t.Fatalf("server.New: %v", err)
	}
	return s
}

// countingExplore runs lab.Explore and counts the calls.
type countingExplore struct {
	mu    sync.Mutex
	calls int
}

func (c *countingExplore) run(ctx context.Context, s *lab.Scenario, opt lab.ExploreOptions) *lab.Exploration {
	c.mu.Lock()
	c.calls++
	c.mu.Unlock()
	return lab.Explore(ctx, s, opt)
}

func (c *countingExplore) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls
}

// exploreCell is the text of the explore table's cell labelled label in
// the row of policy.
func (p page) exploreCell(t *testing.T, policy, label string) string {
	t.Helper()
	tr := htmltest.Find(p.root, func(e *html.Node) bool { return e.Data == "tr" && htmltest.Attr(e, "data-policy") == policy })
	if tr == nil {
		t.Fatalf("no row for policy %s", policy)
	}
	td := htmltest.Find(tr, func(e *html.Node) bool { return e.Data == "td" && htmltest.Attr(e, "data-label") == label })
	if td == nil {
		t.Fatalf("row %s has no cell %q", policy, label)
	}
	return htmltest.Text(td)
}

func exploreOf(t *testing.T, name string) *lab.Exploration {
	t.Helper()
	return exploreWith(t, name, lab.ExploreOptions{})
}

func exploreWith(t *testing.T, name string, opt lab.ExploreOptions) *lab.Exploration {
	t.Helper()
	b, _ := testLibrary(t).Get(name)
	opt.Budget = 200_000
	return lab.Explore(context.Background(), b.Scenario, opt)
}

// model1 are the switches back to model 1's orderings.
var model1 = lab.ExploreOptions{Writes: lab.WritesAtomic, Expiry: lab.ExpiryProgram}

// TestExplorePage explores old-token-first with model 1's switches
// (writes=atomic, expiry=program): 21 orderings, fenced breaks
// superseded-write and unowned-write, fenced-register only unowned-write,
// and authoritative and client-check are safe in all of them.
func TestExplorePage(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	rec := get(t, s, "/explore?from=old-token-first&writes=atomic&expiry=program")
	checkResponse(t, "GET /explore?from=old-token-first&writes=atomic&expiry=program", rec, http.StatusOK, htmlType)
	p := parsePage(t, rec.Body.Bytes())
	status := htmltest.Find(p.root, func(e *html.Node) bool { return htmltest.HasClass(e, "x-status") })
	if status == nil || !strings.Contains(htmltest.Text(status), "All 21 orderings explored") {
		t.Errorf("GET /explore: no status saying all 21 orderings were explored")
	}

	want := exploreWith(t, "old-token-first", model1)
	for _, pe := range want.Policies {
		for _, inv := range lab.Invariants() {
			cell := p.exploreCell(t, string(pe.Policy), string(inv))
			if got, err := strconv.ParseInt(cell, 10, 64); err != nil || got != pe.Violating[inv].Int64() {
				t.Errorf("explore table: %s × %s = %q, want %s", pe.Policy, inv, cell, pe.Violating[inv])
			}
		}
	}
	positive := []struct {
		policy lab.Policy
		inv    lab.Invariant
		more   bool
	}{
		{lab.Fenced, lab.SupersededWrite, true},
		{lab.Fenced, lab.UnownedWrite, true},
		{lab.FencedRegister, lab.SupersededWrite, false},
		{lab.FencedRegister, lab.UnownedWrite, true},
	}
	for _, c := range positive {
		n, _ := strconv.Atoi(p.exploreCell(t, string(c.policy), string(c.inv)))
		if (n > 0) != c.more {
			t.Errorf("explore table: %s × %s = %d, want > 0: %v", c.policy, c.inv, n, c.more)
		}
	}
	for _, policy := range []string{"authoritative", "client-check"} {
		if got := p.exploreCell(t, policy, "counterexample"); got != "✓ clean in all 21 orderings" {
			t.Errorf("explore table: counterexample of %s = %q, want clean in all 21 orderings", policy, got)
		}
	}
	if got := p.exploreCell(t, "fenced", "counterexample"); got != "▲ deposed superseded-write at step 6 of ordering B" {
		t.Errorf("explore table: counterexample of fenced = %q", got)
	}
	bars := htmltest.FindAll(p.root, func(e *html.Node) bool { return e.Data == "svg" && htmltest.HasClass(e, "x-bar") })
	if len(bars) != len(lab.Policies()) {
		t.Fatalf("chart has %d bars, want %d", len(bars), len(lab.Policies()))
	}
	if got, want := htmltest.Attr(bars[2], "aria-label"), "fenced: lets a deposed worker's write in, in 2 of 21 orderings; overrun in 10; clean in 9"; got != want {
		t.Errorf("fenced bar: aria-label %q, want %q", got, want)
	}
	checkExploreOrdering(t, p, "B", "1 2 3 4 5 6 7", 6)
	checkCSPClean(t, "GET /explore", p, []string{static.URL("js/site.js"), static.URL("js/explore.js")})
}

// TestExplorePageClasses explores paused-worker under model 2's defaults
// and checks that the chart says each policy's worst class in words, with
// the spec's numbers: the lesson at a glance. The counterexample of
// client-check shows the split write as a send and a deliver.
func TestExplorePageClasses(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	rec := get(t, s, "/explore?from=paused-worker")
	checkResponse(t, "GET /explore?from=paused-worker", rec, http.StatusOK, htmlType)
	p := parsePage(t, rec.Body.Bytes())
	want := map[string]string{
		"unfenced":          "✖ corrupts data in 70 of 720 orderings",
		"client-check":      "✖ corrupts data in 1 of 720 orderings",
		"fenced":            "▲ lets a deposed worker's write in, in 50 of 720 orderings",
		"fenced-strict":     "▲ lets a deposed worker's write in, in 50 of 720 orderings",
		"fenced-idempotent": "▲ lets a deposed worker's write in, in 50 of 720 orderings",
		"fenced-register":   "△ lease overrun only, in 300 of 720 orderings",
		"authoritative":     "✓ clean in all 720",
		"fenced-racy":       "▲ lets a deposed worker's write in, in 50 of 720 orderings",
		"cas":               "✖ corrupts data in 70 of 720 orderings",
	}
	rows := htmltest.FindAll(p.root, func(e *html.Node) bool { return e.Data == "li" && htmltest.HasClass(e, "x-bar-row") })
	if len(rows) != len(lab.Policies()) {
		t.Fatalf("chart has %d rows, want %d", len(rows), len(lab.Policies()))
	}
	for _, row := range rows {
		policy := htmltest.Text(htmltest.Find(row, func(e *html.Node) bool { return htmltest.HasClass(e, "policy-name") }))
		verdict := htmltest.Find(row, func(e *html.Node) bool { return htmltest.HasClass(e, "x-verdict") })
		if verdict == nil || htmltest.Text(verdict) != want[policy] {
			t.Errorf("chart row %s says %q, want %q", policy, htmltest.Text(verdict), want[policy])
		}
	}
	if got := p.exploreCell(t, "fenced-register", "worst class"); got != "△ overrun in 300" {
		t.Errorf("explore table: worst class of fenced-register = %q, want %q", got, "△ overrun in 300")
	}
	art := htmltest.Find(p.root, func(e *html.Node) bool {
		return e.Data == "article" && htmltest.HasClass(e, "x-ordering") && strings.Contains(htmltest.Text(e), "client-check reaches")
	})
	if art == nil {
		t.Fatal("no counterexample article for client-check")
	}
	for _, chip := range []string{"send #8 old-result", "deliver #8", "send #6 new-result", "deliver #6"} {
		if !strings.Contains(htmltest.Text(art), chip) {
			t.Errorf("client-check's counterexample does not show %q: %s", chip, htmltest.Text(art))
		}
	}
	for _, name := range []string{"writes", "expiry"} {
		sel := htmltest.Find(p.root, func(e *html.Node) bool { return e.Data == "select" && htmltest.Attr(e, "name") == name })
		opt := htmltest.Find(sel, func(e *html.Node) bool { _, ok := attrOK(e, "selected"); return e.Data == "option" && ok })
		if opt == nil || (htmltest.Attr(opt, "value") != "split" && htmltest.Attr(opt, "value") != "free") {
			t.Errorf("the form's %s switch does not show the default selected", name)
		}
	}
}

// checkExploreOrdering finds the counterexample ordering label: its order,
// and the step marked as the first violation.
func checkExploreOrdering(t *testing.T, p page, label, order string, step int) {
	t.Helper()
	art := htmltest.Find(p.root, func(e *html.Node) bool { return e.Data == "article" && htmltest.Attr(e, "id") == "ordering-"+label })
	if art == nil {
		t.Fatalf("no article for ordering %s", label)
	}
	if got := htmltest.Text(htmltest.Find(art, func(e *html.Node) bool { return htmltest.HasClass(e, "x-order") })); got != "Events in the order "+order {
		t.Errorf("ordering %s: %q, want the order %s", label, got, order)
	}
	steps := htmltest.FindAll(art, func(e *html.Node) bool { return e.Data == "li" && htmltest.HasClass(e, "x-step") })
	for i, li := range steps {
		if hit := htmltest.HasClass(li, "x-hit"); hit != (i+1 == step) {
			t.Errorf("ordering %s: step %d marked as a first violation: %v, want %v", label, i+1, hit, !hit)
		}
	}
}

// checkCSPClean fails on inline style or script, and on scripts other than scripts.
func checkCSPClean(t *testing.T, call string, p page, scripts []string) {
	t.Helper()
	bad := htmltest.FindAll(p.root, func(e *html.Node) bool {
		for _, a := range e.Attr {
			if a.Key == "style" || strings.HasPrefix(a.Key, "on") {
				return true
			}
		}
		return e.Data == "style" || e.Data == "script" && htmltest.Attr(e, "src") == ""
	})
	if len(bad) > 0 {
		t.Errorf("%s: %d elements with inline style or script, first <%s>", call, len(bad), bad[0].Data)
	}
	var got []string
	for _, sc := range htmltest.FindAll(p.root, func(e *html.Node) bool { return e.Data == "script" }) {
		got = append(got, htmltest.Attr(sc, "src"))
	}
	if !slices.Equal(got, scripts) {
		t.Errorf("%s: scripts %q, want %q", call, got, scripts)
	}
}

// exploreForm collects the fields of the form whose action is action
// inside the counterexample article of ordering label.
func exploreForm(t *testing.T, p page, label string) url.Values {
	t.Helper()
	art := htmltest.Find(p.root, func(e *html.Node) bool { return e.Data == "article" && htmltest.Attr(e, "id") == "ordering-"+label })
	if art == nil {
		t.Fatalf("no article for ordering %s", label)
	}
	form := htmltest.Find(art, func(e *html.Node) bool { return e.Data == "form" && htmltest.Attr(e, "action") == "/runs" })
	if form == nil {
		t.Fatalf("ordering %s has no form posting to /runs", label)
	}
	if htmltest.Find(form, func(e *html.Node) bool {
		return e.Data == "button" && htmltest.Attr(e, "formaction") == "/explore/edit"
	}) == nil {
		t.Errorf("ordering %s has no button opening it in the editor", label)
	}
	v := url.Values{}
	for _, in := range htmltest.FindAll(form, func(e *html.Node) bool { return e.Data == "input" }) {
		v.Add(htmltest.Attr(in, "name"), htmltest.Attr(in, "value"))
	}
	return v
}

// TestExploreCounterexampleSaves posts a counterexample's form: it saves a
// run whose page shows the violation at the counterexample's step, and
// opens in the editor as a copy of that run. Under model 2 the ordering has
// the sends and delivers the explorer split from the writes; the saved
// scenario names them write-N.
func TestExploreCounterexampleSaves(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	p := parsePage(t, get(t, s, "/explore?from=old-token-first").Body.Bytes())
	x := exploreOf(t, "old-token-first")
	ce := x.Of(lab.Fenced).Counterexample
	form := exploreForm(t, p, "C")
	if got := form["p"]; !slices.Equal(got, []string{"fenced", "fenced-strict", "fenced-idempotent", "fenced-racy"}) {
		t.Errorf("ordering C's form: policies %q", got)
	}
	sc, err := lab.Parse(strings.NewReader(form.Get("scenario")))
	if err != nil {
		t.Fatalf("ordering C's scenario does not parse: %v", err)
	}
	if !strings.HasPrefix(sc.Description, "A counterexample found by exploring every ordering") {
		t.Errorf("ordering C's description = %q, want it to say where it came from", sc.Description)
	}
	var ids []string
	for _, e := range sc.Events {
		ids = append(ids, strings.TrimSpace(string(e.Kind)+" "+e.ID+e.Request))
	}
	if want := []string{"acquire", "pause", "expire", "acquire", "resume", "send write-6", "deliver write-6", "send write-7", "deliver write-7"}; !slices.Equal(ids, want) {
		t.Errorf("ordering C's events = %q, want %q", ids, want)
	}

	rec := postForm(t, s, "/runs", form)
	checkResponse(t, "POST /runs (ordering C)", rec, http.StatusSeeOther, htmlType)
	link := rec.Header().Get("Location")
	if !strings.HasPrefix(link, "/r/") || !strings.Contains(link, "p=fenced-racy") {
		t.Fatalf("POST /runs (ordering C): Location = %q", link)
	}
	run := get(t, s, link)
	checkResponse(t, "GET "+link, run, http.StatusOK, htmlType)
	rp := parsePage(t, run.Body.Bytes())
	want := fmt.Sprintf("step %d: %s", ce.Step, ce.Invariant)
	for _, policy := range form["p"] {
		if got := rp.verdict(t, policy); !strings.Contains(got, want) {
			t.Errorf("GET %s: verdict of %s = %q, want %s", link, policy, got, want)
		}
	}
	if got := rp.cell(t, ce.Step, "fenced"); !strings.Contains(got, "accepted") || !strings.Contains(got, "violates "+string(ce.Invariant)) {
		t.Errorf("GET %s: row %d under fenced = %q, want the write accepted and %s", link, ce.Step, got, ce.Invariant)
	}

	edit := postForm(t, s, "/explore/edit", form)
	checkResponse(t, "POST /explore/edit", edit, http.StatusSeeOther, htmlType)
	id := strings.TrimPrefix(strings.SplitN(link, "?", 2)[0], "/r/")
	target := edit.Header().Get("Location")
	if !strings.HasPrefix(target, "/lab?from=r/"+id+"&p=fenced&") {
		t.Errorf("POST /explore/edit: Location = %q, want /lab?from=r/%s&p=...", target, id)
	}
	lab := get(t, s, target)
	checkResponse(t, "GET "+target, lab, http.StatusOK, htmlType)
	if !strings.Contains(lab.Body.String(), "write-6") {
		t.Errorf("GET %s: the editor does not show the send write-6", target)
	}
}

// TestExploreLinks reaches the page from the scenario and run pages, and
// explores a saved run.
func TestExploreLinks(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	if body := get(t, s, "/scenarios/paused-worker").Body.String(); !strings.Contains(body, `href="/explore?from=paused-worker"`) {
		t.Errorf("GET /scenarios/paused-worker: no link to /explore?from=paused-worker")
	}
	link := postForm(t, s, "/runs", url.Values{"scenario": {builtinSource(t, "paused-worker")}}).Header().Get("Location")
	id := strings.TrimPrefix(link, "/r/")
	if body := get(t, s, link).Body.String(); !strings.Contains(body, `href="/explore?from=r/`+id+`"`) {
		t.Errorf("GET %s: no link to /explore?from=r/%s", link, id)
	}
	rec := get(t, s, "/explore?from=r/"+id)
	checkResponse(t, "GET /explore?from=r/{id}", rec, http.StatusOK, htmlType)
	for _, want := range []string{"All 720 orderings explored", `href="/r/` + id + `"`, `name="from" value="r/` + id + `"`} {
		if !strings.Contains(rec.Body.String(), want) {
			t.Errorf("GET /explore?from=r/%s: page lacks %q", id, want)
		}
	}
	if rec := do(t, s, http.MethodHead, "/explore?from=paused-worker", "", nil); rec.Code != http.StatusOK {
		t.Errorf("HEAD /explore: status %d", rec.Code)
	}
}

// TestExploreForm explores a posted scenario, saves it to get a link, and
// offers an invalid one back for fixing.
func TestExploreForm(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	src := builtinSource(t, "paused-worker")
	rec := postForm(t, s, "/explore", url.Values{"scenario": {src}})
	checkResponse(t, "POST /explore", rec, http.StatusOK, htmlType)
	p := parsePage(t, rec.Body.Bytes())
	form := htmltest.Find(p.root, func(e *html.Node) bool { return e.Data == "form" && hasAttr(e, "data-explore") })
	if form == nil || htmltest.Attr(form, "method") != "post" {
		t.Fatalf("POST /explore: no bounds form posting the scenario again")
	}
	if !strings.Contains(htmltest.Text(p.root), "All 720 orderings explored") {
		t.Errorf("POST /explore: page does not say all 28 orderings were explored")
	}

	save := postForm(t, s, "/explore", url.Values{"scenario": {src}, "save": {"1"}})
	checkResponse(t, "POST /explore save", save, http.StatusSeeOther, htmlType)
	link := save.Header().Get("Location")
	if !strings.HasPrefix(link, "/explore?from=r/") {
		t.Fatalf("POST /explore save: Location = %q", link)
	}
	checkResponse(t, "GET "+link, get(t, s, link), http.StatusOK, htmlType)

	bad := `{"version":1,"title":"x","events":[{"actor":"A","kind":"fly"}]}`
	rec = postForm(t, s, "/explore", url.Values{"scenario": {bad}})
	checkResponse(t, "POST /explore (invalid)", rec, http.StatusUnprocessableEntity, htmlType)
	if !strings.Contains(rec.Body.String(), "Event 1 · kind") {
		t.Errorf("POST /explore (invalid): the 422 page does not name event 1's kind")
	}
}

// TestExploreHostileText shows a hostile title, value and note as text.
func TestExploreHostileText(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	hostile := `{"version":1,"title":"<script>alert(1)</script>",
		"events":[{"actor":"A","kind":"acquire","note":"<b onclick=alert(3)>bold</b>"},{"actor":"A","kind":"pause"},
		          {"actor":"A","kind":"expire"},{"actor":"B","kind":"acquire"},{"actor":"A","kind":"resume"},
		          {"actor":"A","kind":"write","value":"\"><script>alert(4)</script>"}]}`
	rec := postForm(t, s, "/explore", url.Values{"scenario": {hostile}})
	checkResponse(t, "POST /explore (hostile)", rec, http.StatusOK, htmlType)
	for _, bad := range []string{"<script>alert", "<b onclick"} {
		if strings.Contains(rec.Body.String(), bad) {
			t.Errorf("POST /explore (hostile): page contains raw %q", bad)
		}
	}
	p := parsePage(t, rec.Body.Bytes())
	if h1 := htmltest.Find(p.root, func(e *html.Node) bool { return e.Data == "h1" }); h1 == nil || !strings.HasSuffix(htmltest.Text(h1), "<script>alert(1)</script>") {
		t.Errorf("POST /explore (hostile): h1 does not show the title as text")
	}
	checkCSPClean(t, "POST /explore (hostile)", p, []string{static.URL("js/site.js"), static.URL("js/explore.js")})
}

func hasAttr(n *html.Node, key string) bool {
	_, ok := attrOK(n, key)
	return ok
}
